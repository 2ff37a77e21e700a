import { DeleteTableCommand } from '@aws-sdk/client-dynamodb'
import { buildRuntime } from '../../functions/composition'
import { consumerById } from '../../functions/consumers'
import { HOLDER_SLOTS } from '../../functions/domain/figures'
import type { GrantRecord } from '../../functions/domain/grant'
import { createDocumentClient, createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import { DynamoDbFiguresStore } from '../../functions/stores/figures.dynamodb'
import type { HolderFigure, HoldersPage } from '../../functions/stores/figures.store'
import { batchWriteAll } from '../../functions/stores/kernel/batch'
import { scanAll, sendWith } from '../../functions/stores/paging'
import { tableNames } from '../../functions/table-schema'
import { makeGrantFiguresHandler } from '../../functions/wiring/grant-figures.consumer'
import { ensureTables } from '../../local/tables'
import { recordAccess } from '../manage/grants-support'
import {
  figuresOfGrants,
  grantLives,
  lambdaRecordOfWrite,
  streamOrder,
} from '../support/figures-grants'
import { checkClock, config, wallClock } from '../support/runtime'
import { interceptor } from '../support/sdk-intercept'

/**
 * Issue 32's scale proof: a program of 50,000 grants (every state, a few recipients holding
 * thousands, transitions over many days, address corrections) fed to the real GrantFigures handler (the stream's reader of figures)
 * as the DynamoDB stream events Lambda sends, in the consumer's batch size, on its parallel lanes,
 * some batches delivered twice. Then every holder and 90 days of figures equal what a Scan of the
 * grants table gives, and the first holders page and the 90 days each take a bounded number of
 * DynamoDB calls, counted on the client. Its time is reported, never asserted.
 */

const GRANTS = 50_000
const programId = `prog_scale${Date.now().toString(36)}`
const start = Date.parse('2026-01-05T00:00:00.000Z')
const lives = grantLives(programId, GRANTS, { start, days: 60, seed: 32 })
/**
 * A client without the service's 1.5 s attempt timeout: DynamoDB Local, on a machine busy with
 * 50,000 grants' records, answers slower than DynamoDB; what is proven is exactness and counts.
 */
const dynamodb = createDynamoDbClient({
  endpoint: config.dynamodbEndpoint,
  timeouts: { connectionTimeoutMs: 5_000, attemptTimeoutMs: 60_000, maxAttempts: 3 },
})
const documentClient = createDocumentClient(dynamodb)
/**
 * Tables of its own, dropped at the end: the run's other suites share DynamoDB Local, and their
 * scans of the shared tables must not read 50,000 grants and 140,000 records' figures.
 */
const tables = tableNames('scale', `-${Date.now().toString(36)}`)
const runtime = buildRuntime(
  { ...config, tables },
  {
    dynamodb,
    documentClient,
    clock: wallClock,
    monotonic: checkClock,
  },
)
const store = new DynamoDbFiguresStore(documentClient, tables, { clock: wallClock })
const spec = consumerById('GrantFigures')
const trigger = spec.trigger as Extract<typeof spec.trigger, { kind: 'stream' }>
const handler = makeGrantFiguresHandler(runtime)

/** The DynamoDB calls `act` makes, by command, counted by a middleware on the client. */
const countCalls = async (act: () => Promise<unknown>) => {
  const calls: string[] = []
  const stop = interceptor(dynamodb)((command, _input, next) => {
    calls.push(command)
    return next()
  })
  try {
    await act()
  } finally {
    stop()
  }
  return calls
}

const timings: Record<string, number> = {}
const timed = async <T>(name: string, act: () => Promise<T>) => {
  const began = performance.now()
  const result = await act()
  timings[name] = Math.round(performance.now() - began)
  return result
}
let handlerAccess: string[] = []
let deliveries = 0
let redelivered = 0

beforeAll(async () => {
  await ensureTables(dynamodb, tables)
  // The grants as the table holds them at the end, written quickly (25 a call, 8 calls at once).
  await timed('write grants', async () => {
    const requests = lives.map((l) => ({ PutRequest: { Item: l.final } }))
    const parts = Array.from({ length: 8 }, (_, n) => requests.filter((_, i) => i % 8 === n))
    const left = await Promise.all(
      parts.map((part) => batchWriteAll(documentClient, tables.grants, part)),
    )
    expect(left.flat()).toEqual([])
  })
  // The stream: every write in order, on one shard's parallel lanes (a grant always on one).
  const writes = streamOrder(lives)
  const lanes = Array.from({ length: trigger.parallelizationFactor }, () => [] as typeof writes)
  for (const w of writes)
    lanes[Number.parseInt(w.after.grantId.slice(-2), 36) % lanes.length]?.push(w)
  const access = recordAccess(dynamodb, tables)
  await timed('stream', () =>
    Promise.all(
      lanes.map(async (lane, n) => {
        for (let from = 0, batch = 0; from < lane.length; from += trigger.batchSize, batch++) {
          const records = lane.slice(from, from + trigger.batchSize).map(lambdaRecordOfWrite)
          // Some batches twice (a retried invocation); Lambda's retry from a failed record on.
          const times = (batch + n) % 7 === 0 ? 2 : 1
          for (let t = 0; t < times; t++) {
            let attempt = records
            for (let tries = 0; attempt.length > 0; tries++) {
              deliveries++
              const answer = await handler({ Records: attempt })
              const failed = answer.batchItemFailures[0]?.itemIdentifier
              if (failed === undefined) break
              expect(tries).toBeLessThan(trigger.retryAttempts)
              attempt = attempt.slice(
                attempt.findIndex((r) => r.dynamodb?.SequenceNumber === failed),
              )
            }
            if (t === 1) redelivered++
          }
        }
      }),
    ),
  )
  access.stop()
  handlerAccess = [...access.seen].sort()
}, 1_800_000)

afterAll(async () => {
  // The run's cost on this machine, for the record (docs/decisions/figures-from-the-stream.md).
  console.info(JSON.stringify({ grants: GRANTS, deliveries, redelivered, timingsMs: timings }))
  for (const name of Object.values(tables)) {
    await dynamodb.send(new DeleteTableCommand({ TableName: name }))
  }
}, 120_000)

test('every holder, on every page, equals a Scan of the grants table', async () => {
  const scanned = await timed('scan', () =>
    scanAll<GrantRecord>(sendWith(documentClient, undefined), {
      TableName: tables.grants,
      FilterExpression: 'programId = :p',
      ExpressionAttributeValues: { ':p': programId },
    }),
  )
  expect(scanned).toHaveLength(GRANTS)
  const expected = figuresOfGrants(scanned)
  const holders: HolderFigure[] = []
  let cursor: string | undefined
  await timed('all holders', async () => {
    do {
      const page = (await store.holdersPage(programId, {
        limit: 100,
        ...(cursor ? { cursor } : {}),
      })) as HoldersPage
      holders.push(...page.items)
      cursor = page.nextCursor
    } while (cursor !== undefined)
  })
  const byAddress = (a: HolderFigure, b: HolderFigure) => (a.email < b.email ? -1 : 1)
  expect([...holders].sort(byAddress)).toEqual([...expected.holders].sort(byAddress))
  expect(holders.slice(0, 10)).toEqual(expected.holders.slice(0, 10))
  // 90 days from the first grant: every day's figures as the scan counts them.
  const to = new Date(start + 89 * 86_400_000).toISOString().slice(0, 10)
  const from = new Date(start).toISOString().slice(0, 10)
  expect(await store.dailyFigures(programId, from, to)).toEqual(
    expected.daily.filter((d) => d.date >= from && d.date <= to),
  )
  expect(expected.daily.length).toBeGreaterThan(60)
}, 600_000)

test('the first holders page takes at most one Query per holder slot; 90 days, at most two', async () => {
  let page: unknown
  const holderCalls = await countCalls(async () => {
    page = await store.holdersPage(programId, { limit: 100 })
  })
  expect((page as HoldersPage).items).toHaveLength(100)
  expect(holderCalls.length).toBeLessThanOrEqual(HOLDER_SLOTS)
  expect(new Set(holderCalls)).toEqual(new Set(['QueryCommand']))
  let days: unknown
  const dailyCalls = await countCalls(async () => {
    days = await store.dailyFigures(programId, '2026-01-05', '2026-04-04')
  })
  expect((days as unknown[]).length).toBeGreaterThan(60)
  expect(dailyCalls.length).toBeLessThanOrEqual(2)
  expect(new Set(dailyCalls)).toEqual(new Set(['QueryCommand']))
})

test('GrantFigures made exactly the DynamoDB calls its consumer declares', () => {
  const declared = Object.entries(spec.access).flatMap(([table, actions]) =>
    (actions ?? []).map((action) => `${table} ${action}`),
  )
  expect(handlerAccess).toEqual([...declared].sort())
})
