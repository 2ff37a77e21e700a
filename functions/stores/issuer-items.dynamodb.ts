import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import { missingIndex } from './admin-writes.dynamodb'
import { type BatchOptions, batchGetAll } from './kernel/batch'
import type { TransactItem } from './kernel/transact'
import { queryAll, type Send } from './paging'

/** An issuer's items in the admin tables: listed through an index, changed only within it. */

type Update = NonNullable<TransactItem['Update']>

/**
 * An admin change's Update on its own condition and, for a management route's caller (`issuer`),
 * on the item being that issuer's, so another issuer's item is never changed, even by a race. The
 * item as it was comes back when a condition refuses it.
 */
export const issuerUpdate = (issuer: string | undefined, update: Update): TransactItem => {
  const values = {
    ...update.ExpressionAttributeValues,
    ...(issuer === undefined ? {} : { ':issuer': issuer }),
  }
  return {
    Update: {
      ...update,
      ConditionExpression:
        issuer === undefined
          ? update.ConditionExpression
          : `${update.ConditionExpression} AND issuerId = :issuer`,
      // DynamoDB refuses an empty map.
      ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  }
}

/**
 * An issuer's items of `table`: their keys (`key`) through the table's by-issuer `index`
 * (eventually consistent; `query` narrows it), then the items themselves, strongly consistent.
 */
export const issuerItems = async <T>(
  client: DynamoDBDocumentClient,
  send: Send,
  pacing: BatchOptions,
  {
    table,
    index,
    key,
    issuerId,
    query = {},
  }: {
    table: string
    index: string
    key: string
    issuerId: string
    query?: Partial<QueryCommandInput>
  },
): Promise<T[]> => {
  const found = await queryAll<Record<string, unknown>>(send, {
    ...query,
    TableName: table,
    IndexName: index,
    KeyConditionExpression: 'issuerId = :issuer',
    ExpressionAttributeValues: { ...query.ExpressionAttributeValues, ':issuer': issuerId },
  }).catch(missingIndex(table, index))
  return batchGetAll<T>(
    client,
    table,
    found.map((item) => ({ [key]: item[key] })),
    pacing,
  )
}
