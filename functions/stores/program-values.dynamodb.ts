import { GetCommand } from '@aws-sdk/lib-dynamodb'
import { isSubItemKey } from '../domain/program-shards'
import { type ProgramValueEntry, valueSortKey, valuesPartition } from '../domain/program-value'
import { DynamoDbAdminBase, itemOf } from './admin-writes.dynamodb'
import { issuerUpdate } from './issuer-items.dynamodb'
import { queryPage } from './kernel/query-page'
import type { TransactItem } from './kernel/transact'
import type { ProgramValueStore, RecordValueOutcome, ValueHead } from './program-values.store'
import { StoreUnavailable } from './store-errors'

type HistoryItem = ProgramValueEntry & { pk: string; sk: string }

const entryOf = ({ pk: _, sk: __, ...entry }: HistoryItem): ProgramValueEntry => entry

/**
 * A program's value history (figures table, `pk = values#<programId>`, `sk = <asOf>#<setAt>#<valueId>`)
 * and its current value on the head (programs table), with the audit entry and the outbox item of
 * `program.value_changed` (grants table) in the same transaction.
 */
export class DynamoDbProgramValueStore extends DynamoDbAdminBase implements ProgramValueStore {
  async getHead(programId: string): Promise<ValueHead | undefined> {
    if (isSubItemKey(programId)) return undefined
    const { Item } = await this.send<{ Item?: ValueHead }>(
      new GetCommand({
        TableName: this.tables.programs,
        Key: { programId },
        ConsistentRead: true,
        ProjectionExpression: 'programId, issuerId, #mode, #value',
        ExpressionAttributeNames: { '#mode': 'mode', '#value': 'value' },
      }),
    )
    return Item
  }

  async recordValue({
    head,
    entry,
    current,
    issuerId,
    audit,
    outbox,
  }: Parameters<ProgramValueStore['recordValue']>[0]): Promise<RecordValueOutcome> {
    const { programId } = head
    const { valueId, amount, currency, asOf, setAt } = entry
    // Values only move forward on the head, so a value decided not current stays not current:
    // then the head is only checked to be the issuer's.
    const headItem: TransactItem = current
      ? issuerUpdate(issuerId, {
          TableName: this.tables.programs,
          Key: { programId },
          UpdateExpression: 'SET #value = :value',
          ConditionExpression:
            'attribute_exists(programId) AND (attribute_not_exists(#value) OR #value.#asOf < :asOf OR (#value.#asOf = :asOf AND #value.#setAt <= :setAt))',
          ExpressionAttributeNames: { '#value': 'value', '#asOf': 'asOf', '#setAt': 'setAt' },
          ExpressionAttributeValues: {
            ':value': { valueId, amount, currency, asOf, setAt },
            ':asOf': asOf,
            ':setAt': setAt,
          },
        })
      : {
          ConditionCheck: {
            TableName: this.tables.programs,
            Key: { programId },
            ConditionExpression: 'attribute_exists(programId) AND issuerId = :issuer',
            ExpressionAttributeValues: { ':issuer': issuerId },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        }
    const refused = await this.transact(
      [
        headItem,
        {
          Put: {
            TableName: this.tables.figures,
            Item: { pk: valuesPartition(programId), sk: valueSortKey(entry), ...entry },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: this.tables.grants,
            Item: outbox,
            ConditionExpression: 'attribute_not_exists(grantId)',
          },
        },
      ],
      { audit },
    )
    if (!refused) return { kind: 'done', current }
    if (refused[0]?.Code !== 'ConditionalCheckFailed') {
      throw new StoreUnavailable('clash', 'A new value id clashed; nothing was written. Try again.')
    }
    const found = itemOf<ValueHead>(refused[0])
    if (!found || found.issuerId !== issuerId) return { kind: 'not_found' }
    return {
      kind: 'stale',
      head: {
        programId: found.programId,
        issuerId: found.issuerId,
        mode: found.mode,
        ...(found.value === undefined ? {} : { value: found.value }),
      },
    }
  }

  async listValues({ programId, limit, after }: Parameters<ProgramValueStore['listValues']>[0]) {
    const pk = valuesPartition(programId)
    const page = await queryPage<HistoryItem>(
      this.send,
      {
        TableName: this.tables.figures,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ScanIndexForward: false,
        ConsistentRead: true,
        ...(after === undefined ? {} : { ExclusiveStartKey: { pk, sk: valueSortKey(after) } }),
      },
      limit,
    )
    return {
      items: page.items.map(entryOf),
      ...(page.last === undefined ? {} : { last: entryOf(page.last) }),
    }
  }
}
