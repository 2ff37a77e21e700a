import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb'
import { makeRequestLogWriter } from '../../functions/core/request-log-writer'
import { newId } from '../../functions/domain/ids'
import {
  REQUEST_LOG_DAYS,
  REQUEST_LOG_SLOTS,
  type RequestLogEntry,
  requestLogPartition,
} from '../../functions/domain/request-log'
import { logger } from '../../functions/runtime/logger'
import { recordRequest } from '../../functions/runtime/request-log-sink'
import { StoreUnavailable } from '../../functions/stores/store-errors'
import { makeRequestLogHandler } from '../../functions/wiring/request-log.consumer'
import { awslogsEvent, capturedLines, sampleEntry } from '../support/request-log-lines'
import { config, documentClient, runtime } from '../support/runtime'

/**
 * The RequestLog consumer (functions/consumers.ts) with the event CloudWatch Logs sends it: the
 * lines Powertools prints for `recordRequest`, zipped as a subscription delivers them, written to
 * DynamoDB Local's `requests` table by the Lambda's own handler.
 */

const table = config.tables.requests
const handler = makeRequestLogHandler(runtime)
const issuerId = newId('issuer')
const now = Date.now()

/** Every item of the issuer's request log, both modes, every slot. */
const itemsOf = async (issuer: string) => {
  const items: Record<string, unknown>[] = []
  for (const mode of ['TEST', 'LIVE']) {
    for (let slot = 0; slot < REQUEST_LOG_SLOTS; slot++) {
      const page = await documentClient.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `requests#${issuer}#${mode}#${slot}` },
          ConsistentRead: true,
        }),
      )
      items.push(...(page.Items ?? []))
    }
  }
  return items
}

const entries: RequestLogEntry[] = [
  sampleEntry(now - 2_000, { idempotencyKey: 'order-42', grantId: newId('grant') }, issuerId),
  sampleEntry(
    now - 1_000,
    { status: 422, code: 'idempotency_key_reused', idempotencyKey: 'order-41', mode: 'LIVE' },
    issuerId,
  ),
  sampleEntry(
    now,
    {
      method: 'GET',
      route: 'GET /programs/{programId}/recipients/{email}/balance',
      status: 200,
      replayed: false,
    },
    issuerId,
  ),
]

// What a delivery holds: the entries' lines, and lines that are not entries (as they reach the
// writer only if the filter let them through): a plain request line of another route, an entry
// the schema refuses (a forged key), a Lambda platform line, a line cut short.
const entryLines = capturedLines(() => {
  for (const entry of entries) recordRequest(entry)
})
const otherLines = capturedLines(() => {
  logger.info('request', { method: 'POST', route: 'POST /recipient/offer', status: 200 })
  recordRequest({ ...sampleEntry(now, {}, issuerId), requestId: 'req_not-an-id' })
  recordRequest({ ...sampleEntry(now, {}, issuerId), status: 99 })
})
const lines = [
  ...entryLines,
  ...otherLines,
  'START RequestId: 8f5c1f2e-3b4a-4c5d-9e6f-0a1b2c3d4e5f Version: $LATEST',
  (entryLines[0] as string).slice(0, 80),
]

it('captures one Powertools line per recordRequest, the entry under requestLog', () => {
  expect(entryLines).toHaveLength(entries.length)
  expect(JSON.parse(entryLines[0] as string)).toMatchObject({
    level: 'INFO',
    message: 'request',
    requestLog: entries[0],
  })
})

it('writes each entry once with its key and TTL, and skips (and counts) every other line', async () => {
  const answer = await handler(awslogsEvent(lines))
  expect(answer).toEqual({ written: 3, skipped: 5 })
  for (const entry of entries) {
    const { Item } = await documentClient.send(
      new GetCommand({
        TableName: table,
        Key: { pk: partitionOf(entry), sk: entry.requestId },
        ConsistentRead: true,
      }),
    )
    expect(Item).toEqual({
      ...entry,
      pk: partitionOf(entry),
      sk: entry.requestId,
      purgeAt: Math.floor(Date.parse(entry.at) / 1000) + REQUEST_LOG_DAYS * 24 * 60 * 60,
    })
  }
  // Nothing else of the issuer's: the refused entries wrote nothing.
  expect((await itemsOf(issuerId)).map((item) => item.sk).sort()).toEqual(
    entries.map((entry) => entry.requestId).sort(),
  )
})

it('writes nothing twice: the same delivery again, and a line repeated within one', async () => {
  const before = await itemsOf(issuerId)
  expect(await handler(awslogsEvent(lines))).toEqual({ written: 3, skipped: 5 })
  // BatchWriteItem refuses a call naming one key twice: the writer puts each request id once.
  expect(await handler(awslogsEvent([...entryLines, ...entryLines]))).toEqual({
    written: 3,
    skipped: 0,
  })
  const after = await itemsOf(issuerId)
  expect(after).toHaveLength(entries.length)
  expect(sortBySk(after)).toEqual(sortBySk(before))
})

it('writes more than one BatchWriteItem holds (25) from one delivery', async () => {
  const busy = newId('issuer')
  const many = Array.from({ length: 60 }, (_, i) => sampleEntry(now - i, {}, busy))
  const manyLines = capturedLines(() => {
    for (const entry of many) recordRequest(entry)
  })
  expect(await handler(awslogsEvent(manyLines))).toEqual({ written: 60, skipped: 0 })
  expect(await itemsOf(busy)).toHaveLength(60)
})

it('answers a control message, and a delivery that is no envelope, with nothing written', async () => {
  expect(await handler(awslogsEvent(entryLines, { messageType: 'CONTROL_MESSAGE' }))).toEqual({
    written: 0,
    skipped: 0,
  })
  expect(await handler({ awslogs: { data: Buffer.from('not gzip').toString('base64') } })).toEqual({
    written: 0,
    skipped: 0,
  })
})

it('fails the invocation when DynamoDB leaves entries unwritten, so Lambda retries it', async () => {
  const writer = makeRequestLogWriter({ store: { putEntries: async () => 'unavailable' } })
  await expect(writer.write(entries)).rejects.toBeInstanceOf(StoreUnavailable)
  await expect(writer.write([])).resolves.toEqual({ written: 0 })
})

function partitionOf(entry: RequestLogEntry) {
  return requestLogPartition(entry.issuerId, entry.mode, entry.requestId)
}
function sortBySk(items: Record<string, unknown>[]) {
  return [...items].sort((a, b) => String(a.sk).localeCompare(String(b.sk)))
}
