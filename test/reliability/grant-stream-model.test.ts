import { MODEL_DEFAULTS } from '../../bench/contention/dynamodb-model'
import {
  deployedStreamSettings,
  runGrantStreamModel,
  type StreamParams,
} from '../../bench/contention/grant-stream-model'
import { consumerById } from '../../functions/consumers'
import { createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import { tableNames } from '../../functions/table-schema'
import { ensureTables } from '../../local/tables'
import { config } from '../support/runtime'

/**
 * The stream reader in the contention model (bench/contention/grant-stream-model.ts): the real
 * GrantStream handler over DynamoDB Local, Lambda's batching and lanes in virtual time. The
 * bench's figures (`BENCH_ONLY=stream-model`) are at 1,000 and 2,000 grants a second for 20 s;
 * these runs are a few seconds of arrivals, and check the mechanics those figures rest on.
 */
const endpoint = config.dynamodbEndpoint as string
const tables = tableNames('stream-model', `-${process.pid}`)
beforeAll(async () => {
  await ensureTables(createDynamoDbClient({ endpoint }), tables)
})

/** Every time fixed (a log-normal with median = p99 is that value): costs are exact. */
const fixed = (ms: number) => ({ medianMs: ms, p99Ms: ms })
const FIXED: StreamParams = {
  sqs: fixed(40),
  invoke: fixed(10),
  coldStart: fixed(1),
  pollIntervalMs: 250,
}
/** DynamoDB at 3 ms a call, and room enough on one partition that nothing throttles. */
const ROOMY = {
  ...MODEL_DEFAULTS,
  single: fixed(3),
  rejection: fixed(3),
  partitions: 1,
  partitionWcu: 1_000_000,
}

describe('the stream reader in the contention model', () => {
  it('models the mappings the stack deploys, each reader its own', () => {
    for (const reader of ['GrantStream', 'GrantFigures'] as const) {
      const trigger = consumerById(reader).trigger
      expect(trigger.kind).toBe('stream')
      expect(deployedStreamSettings(reader)).toEqual({
        batchSize: trigger.kind === 'stream' ? trigger.batchSize : 0,
        batchingWindowSeconds: trigger.kind === 'stream' ? trigger.maxBatchingWindowSeconds : 0,
        parallelizationFactor: trigger.kind === 'stream' ? trigger.parallelizationFactor : 0,
      })
    }
    expect(deployedStreamSettings()).toEqual(deployedStreamSettings('GrantStream'))
  })

  it('runs GrantFigures on its own mapping: every record handed over once, in order, no mail, no queue call', async () => {
    const run = await runGrantStreamModel({
      reader: 'GrantFigures',
      endpoint,
      tables,
      rate: 1_000,
      seconds: 1,
      params: ROOMY,
      stream: FIXED,
    })
    expect(run).toMatchObject({ reader: 'GrantFigures', ...deployedStreamSettings('GrantFigures') })
    expect(run.records).toBeGreaterThan(800)
    expect(run.givenUp).toBe(0)
    expect(run.outOfOrder).toBe(0)
    expect(run.mailed).toBe(0)
    expect(run.sqsCallsPerRecord).toBe(0)
    // Its figures: a BatchGetItem of markers and transactions per batch.
    expect(run.dynamoDbCallsPerRecord).toBeGreaterThan(0)
  })

  it('hands every record over once, in order, at most the factor per shard at once, with its mail, event and two timers', async () => {
    // The deployed settings on a fresh table's 4 partitions, at the sized rate for 1 s: timer
    // writes may be throttled (the model's partitions), failing a record, which is retried.
    const run = await runGrantStreamModel({
      endpoint,
      tables,
      rate: 2_000,
      seconds: 1,
      readBack: true,
    })
    expect(run.records).toBeGreaterThan(1_800)
    expect(run.mailed).toBe(run.records)
    expect(run.events).toBe(run.records)
    expect(run.timersWritten).toBe(2 * run.records)
    expect(run.givenUp).toBe(0)
    expect(run.outOfOrder).toBe(0)
    expect(run.maxInFlightPerShard).toBeGreaterThan(1)
    expect(run.maxInFlightPerShard).toBeLessThanOrEqual(run.parallelizationFactor)
    expect(run.meanBatch).toBeLessThanOrEqual(run.batchSize)
    // The handler's calls: BatchWriteItem for 25 timers (2 a record), SendMessageBatch for 10
    // entries per queue (1 mail and 1 event a record); throttled writes and their retries on top.
    expect(run.dynamoDbCallsPerRecord).toBeGreaterThanOrEqual(2 / 25)
    expect(run.sqsCallsPerRecord).toBeGreaterThanOrEqual(2 / 10)
  })

  it('closes a batch at its window when records come slowly: each waits at most the window, a poll and the invoke', async () => {
    // 20 a second on one lane: a 1 s window closes on about 20 records, never 100.
    const run = await runGrantStreamModel({
      endpoint,
      tables,
      rate: 20,
      seconds: 5,
      settings: { batchSize: 100, batchingWindowSeconds: 1, parallelizationFactor: 1 },
      params: ROOMY,
      stream: FIXED,
    })
    expect(run.throttles).toBe(0)
    expect(run.meanBatch).toBeGreaterThan(10)
    expect(run.meanBatch).toBeLessThan(40)
    // Seen at the first poll after it arrived (<= 250 ms), then the window, then the invoke
    // (10 ms, and 1 ms cold on the first).
    expect(run.recordWaitMs.max).toBeLessThanOrEqual(250 + 1_000 + 10 + 1)
    expect(run.recordWaitMs.max).toBeGreaterThan(1_000)
  })

  it('falls behind at a rate one lane cannot take, and keeps up with three lanes a shard', async () => {
    // A batch of 10 costs 10 ms invoke + one BatchWriteItem (3 ms) + one SendMessageBatch per
    // queue side by side (40 ms): 53 ms for 10 records, about 189 a second a lane.
    const overloaded = {
      endpoint,
      tables,
      rate: 400,
      seconds: 3,
      params: ROOMY,
      stream: FIXED,
    }
    const one = await runGrantStreamModel({
      ...overloaded,
      settings: { batchSize: 10, batchingWindowSeconds: 1, parallelizationFactor: 1 },
    })
    // It drains at its own rate, exactly: the first poll (250 ms, the first record having come
    // within it), the cold start (1 ms), then invocation after invocation; the last batch, short of
    // 10 once the arrivals stop, waits out its 1 s window.
    expect(one.invocations).toBe(Math.ceil(one.records / 10))
    const window = one.records % 10 === 0 ? 0 : 1
    expect(one.drainedSeconds).toBeCloseTo(0.251 + (one.invocations * 53) / 1_000 + window, 6)
    // About (400 - 189) x 3 s = 630 records behind at the end: over 3 s of iterator age, and
    // behind for most of the run.
    expect(one.iteratorAgeMs.p50).toBeGreaterThan(1_000)
    expect(one.iteratorAgeMs.max).toBeGreaterThan(2_500)
    const three = await runGrantStreamModel({
      ...overloaded,
      settings: { batchSize: 10, batchingWindowSeconds: 1, parallelizationFactor: 3 },
    })
    // 3 x 189 a second takes 400: each full batch invoked within a poll of its last record; only
    // the last ones, short once the arrivals stop, wait out their window.
    expect(three.maxInFlightPerShard).toBe(3)
    expect(three.iteratorAgeMs.p50).toBeLessThan(300)
    expect(three.iteratorAgeMs.max).toBeLessThanOrEqual(250 + 1_000 + 10 + 1)
    expect(three.drainedSeconds).toBeLessThan(3 + 1 + 0.3)
    for (const run of [one, three]) {
      expect(run.mailed).toBe(run.records)
      expect(run.outOfOrder).toBe(0)
    }
  })
})
