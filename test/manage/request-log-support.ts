import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { newId } from '../../functions/domain/ids'
import { newRequestId } from '../../functions/domain/request-id'
import {
  REQUEST_LOG_DAYS,
  type RequestLogEntry,
  requestLogPartition,
} from '../../functions/domain/request-log'
import { config, documentClient } from '../support/runtime'

/** The request log's entries for the reads' tests (the management routes, the console's page). */

const STATUSES = [201, 200, 409, 429, 400, 201, 404, 200] as const
const CODES: Record<number, string> = {
  400: 'validation_failed',
  404: 'grant_not_found',
  409: 'pool_exhausted',
  429: 'rate_limited',
}

/** An issuer's key ids by mode. */
export type ModeKeys = { TEST: string[]; LIVE: string[] }

/**
 * `count` entries from `start` (epoch ms) on, 41 s apart, every eighth sharing the millisecond of
 * the one before; a third LIVE; statuses, codes, keys and Idempotency-Keys in turn.
 */
export const makeEntries = (
  issuerId: string,
  modeKeys: ModeKeys,
  count: number,
  start: number,
): RequestLogEntry[] => {
  const made: RequestLogEntry[] = []
  let ms = start
  for (let i = 0; i < count; i++) {
    if (i % 8 !== 1) ms += 41_000
    const mode = i % 3 === 0 ? 'LIVE' : 'TEST'
    const status = STATUSES[i % STATUSES.length] as number
    const code = CODES[status]
    made.push({
      requestId: newRequestId(ms),
      at: new Date(ms).toISOString(),
      issuerId,
      mode,
      keyId: modeKeys[mode][i % modeKeys[mode].length] as string,
      method: status === 200 ? 'GET' : 'POST',
      route:
        status === 200
          ? 'GET /programs/{programId}/grants/{grantId}'
          : 'POST /programs/{programId}/grant-tokens',
      programId: newId('program'),
      ...(status === 201 || status === 200 ? { grantId: newId('grant') } : {}),
      status,
      ...(code === undefined ? {} : { code }),
      latencyMs: 5 + i,
      ...(i % 4 === 0 ? { idempotencyKey: `order-${i}` } : {}),
      replayed: i % 16 === 0,
    })
  }
  return made
}

/**
 * Puts entries in the request log's table in the layout of the contract (table-schema.ts
 * `requests`): the writer's own layout, without the writer. By default in the test run's table;
 * `target`: another server's (npm start's).
 */
export const putRequestLog = async (
  entries: readonly RequestLogEntry[],
  target: { client: DynamoDBDocumentClient; table: string } = {
    client: documentClient,
    table: config.tables.requests,
  },
) => {
  for (let i = 0; i < entries.length; i += 25) {
    const items = entries.slice(i, i + 25).map((entry) => ({
      PutRequest: {
        Item: {
          pk: requestLogPartition(entry.issuerId, entry.mode, entry.requestId),
          sk: entry.requestId,
          ...entry,
          purgeAt: Math.floor(Date.parse(entry.at) / 1000) + REQUEST_LOG_DAYS * 86_400,
        },
      },
    }))
    const result = await target.client.send(
      new BatchWriteCommand({ RequestItems: { [target.table]: items } }),
    )
    if (Object.keys(result.UnprocessedItems ?? {}).length > 0) throw new Error('unprocessed')
  }
}
