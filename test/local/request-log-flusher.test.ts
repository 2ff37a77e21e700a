import { GetCommand } from '@aws-sdk/lib-dynamodb'
import type { RequestLogWriter } from '../../functions/core/request-log-writer'
import { newId } from '../../functions/domain/ids'
import { type RequestLogEntry, requestLogPartition } from '../../functions/domain/request-log'
import { recordRequest } from '../../functions/runtime/request-log-sink'
import { type LocalPipeline, startLocalPipeline } from '../../local/pipeline'
import {
  REQUEST_LOG_FLUSH_MS,
  startRequestLogFlusher,
  type Ticker,
} from '../../local/request-log-flusher'
import { capturedLines, sampleEntry } from '../support/request-log-lines'
import { config, documentClient, runtime } from '../support/runtime'

/**
 * The request log under `npm start` (local/request-log-flusher.ts through local/pipeline.ts): what
 * the routes record is buffered and written by the RequestLog writer on the flusher's tick, every
 * REQUEST_LOG_FLUSH_MS; the ticks here are driven by hand, so the test shows that one tick is
 * what it takes, whatever the machine's speed.
 */

type Tick = { tick: () => Promise<void>; everyMs: number; cancelled: boolean }
const ticks: Tick[] = []
const handTicker: Ticker = (tick, everyMs) => {
  const made = { tick, everyMs, cancelled: false }
  ticks.push(made)
  return () => {
    made.cancelled = true
  }
}
const lastTick = () => ticks.at(-1) as Tick

const stored = async (entry: RequestLogEntry) =>
  (
    await documentClient.send(
      new GetCommand({
        TableName: config.tables.requests,
        Key: {
          pk: requestLogPartition(entry.issuerId, entry.mode, entry.requestId),
          sk: entry.requestId,
        },
        ConsistentRead: true,
      }),
    )
  ).Item

let pipeline: LocalPipeline
beforeAll(async () => {
  pipeline = await startLocalPipeline({
    runtime,
    stream: false,
    startAt: 'LATEST',
    requestLog: { ticker: handTicker },
  })
})
afterAll(() => pipeline.stop())

it('ticks every 250 ms at most: an entry is written within a tick and one write of its request', () => {
  expect(REQUEST_LOG_FLUSH_MS).toBeLessThanOrEqual(250)
  expect(ticks).toHaveLength(1)
  expect(lastTick().everyMs).toBe(REQUEST_LOG_FLUSH_MS)
})

it('holds what the routes record until the next tick, which writes it', async () => {
  const entry = sampleEntry(Date.now(), { idempotencyKey: 'order-7' })
  recordRequest(entry)
  expect(pipeline.status().requestLogPending).toBe(1)
  expect(await stored(entry)).toBeUndefined()
  await lastTick().tick()
  expect(pipeline.status().requestLogPending).toBe(0)
  expect(await stored(entry)).toMatchObject({ ...entry, sk: entry.requestId })
})

it('skips an entry the writer refuses, as the Lambda does, and writes the rest', async () => {
  const errors: string[] = []
  const written: RequestLogEntry[][] = []
  const writer: RequestLogWriter = {
    write: async (entries) => {
      written.push([...entries])
      return { written: entries.length }
    },
  }
  const own: Tick[] = []
  const flusher = startRequestLogFlusher({
    writer,
    ticker: (tick, everyMs) => {
      own.push({ tick, everyMs, cancelled: false })
      return () => {}
    },
    onError: (message) => errors.push(message),
  })
  try {
    const good = sampleEntry(Date.now())
    recordRequest(good)
    recordRequest({ ...sampleEntry(Date.now()), keyId: '' })
    await own[0]?.tick()
    expect(written).toEqual([[good]])
    expect(errors).toEqual(['request log: 1 entries the writer refuses, skipped'])
  } finally {
    await flusher.stop()
  }
})

it('keeps entries DynamoDB refused for the next tick', async () => {
  let refuse = true
  const written: RequestLogEntry[] = []
  const own: Tick[] = []
  const flusher = startRequestLogFlusher({
    writer: {
      write: async (entries) => {
        if (refuse) throw new Error('DynamoDB Local is away')
        written.push(...entries)
        return { written: entries.length }
      },
    },
    ticker: (tick, everyMs) => {
      own.push({ tick, everyMs, cancelled: false })
      return () => {}
    },
    onError: () => {},
  })
  try {
    const first = sampleEntry(Date.now() - 1)
    const second = sampleEntry(Date.now())
    recordRequest(first)
    await own[0]?.tick()
    expect(flusher.pending()).toBe(1)
    recordRequest(second)
    refuse = false
    await own[0]?.tick()
    expect(written).toEqual([first, second])
    expect(flusher.pending()).toBe(0)
  } finally {
    await flusher.stop()
  }
})

it('on stop, writes what is left, stops ticking and gives the sink back to the log line', async () => {
  const local = await startLocalPipeline({
    runtime,
    stream: false,
    startAt: 'LATEST',
    requestLog: { ticker: handTicker },
  })
  const tick = lastTick()
  const entry = sampleEntry(Date.now(), {}, newId('issuer'))
  recordRequest(entry)
  await local.stop()
  expect(tick.cancelled).toBe(true)
  expect(await stored(entry)).toMatchObject({ requestId: entry.requestId })
  // The routes' entries are log lines again (what the Lambda's subscription reads).
  const after = sampleEntry(Date.now())
  const lines = capturedLines(() => recordRequest(after))
  expect(lines.map((line) => JSON.parse(line).requestLog)).toEqual([after])
})
