import { createHash } from 'node:crypto'
import { marshall } from '@aws-sdk/util-dynamodb'
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda'
import type { Runtime } from '../../functions/composition'
import type { Config } from '../../functions/config'
import { consumerById } from '../../functions/consumers'
import { readGrantRecord } from '../../functions/core/grant-stream'
import type { GrantRecord } from '../../functions/domain/grant'
import { offerExpiresAt } from '../../functions/domain/grant-lifecycle'
import { base32, ID_PREFIX } from '../../functions/domain/ids'
import { allTimerSlots } from '../../functions/domain/offer-timers'
import type { QueueSender } from '../../functions/runtime/queue-sender'
import { queryAll, type Send } from '../../functions/stores/paging'
import { tableChangeOf } from '../../functions/stores/stream-records.dynamodb'
import type { TableKey } from '../../functions/table-schema'
import { makeGrantFiguresHandler } from '../../functions/wiring/grant-figures.consumer'
import { makeGrantStreamHandler } from '../../functions/wiring/grant-stream.consumer'
import { seededRandom } from '../../test/support/fault-injector'
import {
  type LogNormal,
  logNormal,
  MODEL_DEFAULTS,
  type ModelParams,
  partitionOf,
} from './dynamodb-model'
import { IoVirtualTime } from './io-virtual-time'
import { openModel, percentile } from './model-setup'

/**
 * The grants table's stream and one of its readers, GrantStream or GrantFigures (`reader`), in the
 * contention model (issues 30, 32): how far behind the reader falls at a given grant rate, as
 * Lambda's IteratorAge reports it. Each reader has its own mapping, lanes and tables to write
 * (timers; figures) and a shard serves two readers without throttling, so one run models one
 * reader and the other's run does not change it.
 *
 * - Records: one INSERT per grant (the record the grant path's write makes), arriving as a Poisson
 *   process at `rate` a second for `seconds`, each on the stream shard of its item's partition:
 *   one open shard per table partition, `partitions` of them (a new on-demand table's 4; DynamoDB
 *   "shard-creation behavior is partially influenced by table partition activity"), keyed by the
 *   same hash as the model's partitions.
 * - Lambda's event source mapping (Lambda developer guide, "Using AWS Lambda with Amazon
 *   DynamoDB"): each shard is read in `parallelizationFactor` lanes ("concurrent batches per
 *   shard"), a record's lane fixed by its item key (order kept per item); each lane runs one batch
 *   at a time. An idle lane polls 4 times a second ("a base rate of 4 times per second"); after an
 *   invocation it reads again at once ("resumes polling"). It invokes when it holds `batchSize`
 *   records or when `batchingWindowSeconds` have passed since it saw its first waiting record.
 * - An invocation: Lambda's invoke overhead, a cold start on each lane's first, then the real
 *   handler (functions/wiring/grant-stream.consumer.ts) on the batch: its timer writes
 *   (BatchWriteItem, 25 a call, one after the other) through the model over DynamoDB Local, its
 *   SendMessageBatch calls (10 entries a call, one after the other per queue, OfferMail and
 *   Webhooks side by side) each waiting `sqs` in virtual time. A record it reports failed is
 *   handed to the next invocation with the rest of its batch (at most `retryAttempts` times).
 * - IteratorAge, as Lambda defines it: per invocation, from when the stream received the batch's
 *   last record to when the function was invoked. Also each record's own wait (its arrival to its
 *   batch's invocation), whose maximum is the oldest record's.
 * Virtual time (./io-virtual-time.ts: the handler sends to its two queues with a Promise.all).
 */

/** Lambda-side time, the model's assumptions (no AWS figure): see docs/performance.md. */
export type StreamParams = {
  /** One SendMessageBatch call (AWS: "a typical SQS request-response takes a bit less than 20ms"). */
  sqs: LogNormal
  /** From the poller's decision to the handler running, warm. */
  invoke: LogNormal
  /** Added to each lane's first invocation (a new execution environment). */
  coldStart: LogNormal
  /** How often an idle lane polls its shard. */
  pollIntervalMs: number
}

export const STREAM_DEFAULTS: StreamParams = {
  sqs: { medianMs: 20, p99Ms: 60 },
  invoke: { medianMs: 10, p99Ms: 30 },
  coldStart: { medianMs: 400, p99Ms: 1_000 },
  pollIntervalMs: 250,
}

export type StreamSettings = {
  batchSize: number
  batchingWindowSeconds: number
  parallelizationFactor: number
}

/** The stream's readers (functions/consumers.ts). */
export type StreamReader = 'GrantStream' | 'GrantFigures'

/** The mapping as functions/consumers.ts declares it (what the stack deploys). */
export const deployedStreamSettings = (reader: StreamReader = 'GrantStream'): StreamSettings => {
  const trigger = consumerById(reader).trigger
  if (trigger.kind !== 'stream') throw new Error(`${reader} is not read from a stream`)
  return {
    batchSize: trigger.batchSize,
    batchingWindowSeconds: trigger.maxBatchingWindowSeconds,
    parallelizationFactor: trigger.parallelizationFactor,
  }
}

export type Spread = { p50: number; p99: number; max: number }

export type StreamModelRun = StreamSettings & {
  reader: StreamReader
  rate: number
  seconds: number
  shards: number
  records: number
  /** Lambda's IteratorAge over the run's invocations, virtual ms. */
  iteratorAgeMs: Spread
  /** Each record's wait from its arrival to its batch's invocation, virtual ms. */
  recordWaitMs: Spread
  invocations: number
  meanBatch: number
  /** The most invocations of one shard's records running at once (at most the factor). */
  maxInFlightPerShard: number
  /** Batches that began at or before the end of the lane's previous one (none: order kept). */
  outOfOrder: number
  /** Invocations that reported a failed record (writes throttled past the handler's tries). */
  partialFailures: number
  /** Records given up on after `retryAttempts` (Lambda's on-failure destination). */
  givenUp: number
  /** Exactness: each record's offer mail and `grant.created` handed over, its two timers stored. */
  mailed: number
  events: number
  timersWritten: number
  throttles: number
  /** DynamoDB and SQS calls a record, as the handler made them. */
  dynamoDbCallsPerRecord: number
  sqsCallsPerRecord: number
  /** Virtual seconds from the first arrival to the last record handed over. */
  drainedSeconds: number
}

export type StreamModelOptions = {
  /** Which reader's handler and mapping (default GrantStream). */
  reader?: StreamReader
  endpoint: string
  tables: Record<TableKey, string>
  /** Grants (stream records) a second. */
  rate: number
  seconds: number
  settings?: Partial<StreamSettings>
  partitions?: number
  params?: ModelParams
  stream?: StreamParams
  retryAttempts?: number
  seed?: number
  /** Read every timer back from DynamoDB Local (exactness; slow for a large run; GrantStream). */
  readBack?: boolean
}

type Pending = { arrival: number; record: DynamoDBRecord; grantId: string }

export const runGrantStreamModel = async (options: StreamModelOptions): Promise<StreamModelRun> => {
  const { endpoint, tables, rate, seconds } = options
  const reader = options.reader ?? 'GrantStream'
  const settings = { ...deployedStreamSettings(reader), ...options.settings }
  const stream = options.stream ?? STREAM_DEFAULTS
  const params = options.params ?? MODEL_DEFAULTS
  const shards = options.partitions ?? params.partitions
  const retryAttempts = options.retryAttempts ?? 10
  const random = seededRandom(options.seed ?? 30)
  const time = new IoVirtualTime()
  const model = openModel({ endpoint, tables, time, params, random })
  time.attach(model.raw)
  const epoch = Date.now()
  const runtime = {
    config: { tables } as unknown as Config,
    documentClient: model.client,
    dynamodb: model.raw,
    clock: { now: () => epoch + time.now() },
    monotonic: { now: time.now },
  } as unknown as Runtime

  const lanes = arrivals({ rate, seconds, shards, settings, random, epoch, table: tables.grants })
  const records = lanes.reduce((n, l) => n + l.length, 0)

  const queues = countingQueues(time, stream, random)
  const handler =
    reader === 'GrantFigures'
      ? makeGrantFiguresHandler(runtime, { sleep: time.sleep })
      : makeGrantStreamHandler(runtime, {
          offerMail: queues.offerMail,
          webhooks: queues.webhooks,
          sleep: time.sleep,
        })
  model.resetCalls()

  const iteratorAges: number[] = []
  const waits: number[] = []
  let invocations = 0
  let firstInvocations = 0
  const inFlight: number[] = []
  let maxInFlightPerShard = 0
  let outOfOrder = 0
  let partialFailures = 0
  let givenUp = 0
  let drained = 0
  const nextPoll = (now: number) =>
    (Math.floor(now / stream.pollIntervalMs) + 1) * stream.pollIntervalMs

  /** One lane: one batch at a time, in arrival order. */
  const lane = async (pending: Pending[], shard: number) => {
    let next = 0
    let lastSequence = ''
    let cold = true
    // What the lane has read from its shard: everything up to its last poll.
    let polledAt = 0
    // When it saw the first record of the batch it is gathering (its batching window's start).
    let firstSeen: number | undefined
    while (next < pending.length) {
      const head = pending[next] as Pending
      if (head.arrival > polledAt) {
        // Idle: the first poll that finds it (an empty poll changes nothing, so none is woken for).
        await time.until(Math.ceil(head.arrival / stream.pollIntervalMs) * stream.pollIntervalMs)
        polledAt = time.now()
        continue
      }
      firstSeen ??= polledAt
      let visible = next
      while (
        visible < pending.length &&
        visible - next < settings.batchSize &&
        (pending[visible] as Pending).arrival <= polledAt
      )
        visible++
      const windowEnds = firstSeen + settings.batchingWindowSeconds * 1_000
      if (visible - next < settings.batchSize && time.now() < windowEnds) {
        await time.until(Math.min(windowEnds, nextPoll(time.now())))
        polledAt = time.now()
        continue
      }
      let batch = pending.slice(next, visible)
      next = visible
      firstInvocations++
      for (let attempt = 0; batch.length > 0; attempt++) {
        const overhead = logNormal(stream.invoke, random)
        await time.sleep(overhead + (cold ? logNormal(stream.coldStart, random) : 0))
        cold = false
        const invokedAt = time.now()
        invocations++
        inFlight[shard] = (inFlight[shard] ?? 0) + 1
        maxInFlightPerShard = Math.max(maxInFlightPerShard, inFlight[shard] ?? 0)
        // Within a lane, what is handed over never goes back before what came before it.
        const first = batch[0]?.record.dynamodb?.SequenceNumber ?? ''
        if (attempt === 0 && first <= lastSequence) outOfOrder++
        lastSequence = batch.at(-1)?.record.dynamodb?.SequenceNumber ?? lastSequence
        iteratorAges.push(invokedAt - (batch.at(-1) as Pending).arrival)
        if (attempt === 0) for (const p of batch) waits.push(invokedAt - p.arrival)
        const answer = await handler({ Records: batch.map((p) => p.record) } as DynamoDBStreamEvent)
        inFlight[shard] = (inFlight[shard] ?? 1) - 1
        const failed = answer.batchItemFailures[0]?.itemIdentifier
        if (failed === undefined) break
        partialFailures++
        // Lambda's retry: from the failed record on.
        batch = batch.slice(batch.findIndex((p) => p.record.dynamodb?.SequenceNumber === failed))
        if (attempt >= retryAttempts) {
          givenUp += batch.length
          break
        }
      }
      drained = Math.max(drained, time.now())
      // Lambda resumes polling at once: what arrived meanwhile is read now.
      polledAt = time.now()
      firstSeen = undefined
    }
  }
  await time.run(
    lanes.map((pending, n) => () => lane(pending, Math.floor(n / settings.parallelizationFactor))),
  )

  const calls = Object.values(model.stats.calls).reduce((a, b) => a + b, 0)
  const grantIds = lanes.flatMap((l) => l.map((p) => p.grantId))
  const timersWritten =
    options.readBack && reader === 'GrantStream'
      ? await countTimers(
          model.setupClient,
          tables.timers,
          lanes.flatMap((l) => l.map((p) => p.record)),
        )
      : -1
  model.raw.destroy()
  return {
    ...settings,
    reader,
    rate,
    seconds,
    shards,
    records,
    iteratorAgeMs: spread(iteratorAges),
    recordWaitMs: spread(waits),
    invocations,
    meanBatch: waits.length / Math.max(1, firstInvocations),
    maxInFlightPerShard,
    outOfOrder,
    partialFailures,
    givenUp,
    mailed: grantIds.filter((id) => queues.taken.offer.has(id)).length,
    events: grantIds.filter((id) => queues.taken.event.has(id)).length,
    timersWritten,
    throttles: model.stats.throttles,
    dynamoDbCallsPerRecord: calls / Math.max(1, records),
    sqsCallsPerRecord: queues.calls() / Math.max(1, records),
    drainedSeconds: drained / 1_000,
  }
}

const spread = (values: number[]): Spread => {
  const sorted = [...values].sort((a, b) => a - b)
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) ?? 0 }
}

/** Poisson arrivals at `rate` a second for `seconds`, each in its shard's lane, in order. */
const arrivals = (o: {
  rate: number
  seconds: number
  shards: number
  settings: StreamSettings
  random: () => number
  epoch: number
  table: string
}) => {
  const lanes: Pending[][] = Array.from(
    { length: o.shards * o.settings.parallelizationFactor },
    () => [],
  )
  let at = 0
  let sequence = 0
  for (;;) {
    at += (-Math.log(1 - o.random()) * 1_000) / o.rate
    if (at >= o.seconds * 1_000) return lanes
    // A grant id from the run's seed (newId's form): a run's shards, lanes and slots repeat.
    const grantId = `${ID_PREFIX.grant}_${base32(
      Uint8Array.from({ length: 17 }, () => Math.floor(o.random() * 256)),
      26,
    )}`
    const shard = shardOf(partitionOf(o.table, grantId, o.shards))
    const lane = shard * o.settings.parallelizationFactor + laneOf(grantId, o.settings)
    ;(lanes[lane] as Pending[]).push({
      arrival: at,
      grantId,
      record: insertOf(grantId, o.epoch + at, ++sequence),
    })
  }
}

/** OfferMail and Webhooks: each SendMessageBatch waits its service time; what they took, by grant. */
const countingQueues = (time: IoVirtualTime, stream: StreamParams, random: () => number) => {
  const taken = { offer: new Set<string>(), event: new Set<string>() }
  let calls = 0
  const queue = (kind: 'offer' | 'event'): QueueSender => ({
    async sendBatch(entries) {
      calls++
      await time.sleep(logNormal(stream.sqs, random))
      for (const entry of entries) {
        const body = JSON.parse(entry.body) as {
          grantId?: string
          event?: { data: { grantId: string } }
        }
        taken[kind].add(body.grantId ?? body.event?.data.grantId ?? '')
      }
      return { failed: [] }
    },
  })
  return { offerMail: queue('offer'), webhooks: queue('event'), taken, calls: () => calls }
}

const shardOf = (partition: string) => Number(partition.slice(partition.lastIndexOf('#') + 1))

/**
 * The lane of an item within its shard: a hash of its key independent of the partition's (FNV-1a
 * modulo a power of two depends on the same low bits as the shard's, so not FNV again).
 */
const laneOf = (grantId: string, settings: StreamSettings) =>
  createHash('sha256').update(grantId).digest().readUInt32BE(0) % settings.parallelizationFactor

/** The stream record of a grant the grant path has just stored (functions/core/grant-tokens.ts). */
const insertOf = (grantId: string, createdAtMs: number, sequence: number): DynamoDBRecord => {
  const grant: GrantRecord = {
    grantId,
    programId: 'pr_streammodel',
    issuerId: 'is_streammodel',
    mode: 'LIVE',
    recipient: { email: `${grantId}@example.com` },
    reason: 'Campaign',
    amount: 1,
    status: 'reserved',
    createdAt: new Date(createdAtMs).toISOString(),
    expiresAt: new Date(offerExpiresAt(createdAtMs)).toISOString(),
    recipientKey: `${grantId}@example.com`,
    requestHash: 'x'.repeat(64),
    shard: 0,
  }
  return {
    eventName: 'INSERT',
    eventSource: 'aws:dynamodb',
    dynamodb: {
      Keys: { grantId: { S: grantId } },
      SequenceNumber: String(sequence).padStart(21, '0'),
      ApproximateCreationDateTime: Math.floor(createdAtMs / 1000),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
      NewImage: marshall(grant, { removeUndefinedValues: true }),
    },
  } as unknown as DynamoDBRecord
}

/**
 * How many of the timers `records` ask for the table holds, read outside the model: by `due`, which
 * holds the run's own times (an earlier run's timers of the same grant ids are not counted).
 */
const countTimers = async (
  client: ReturnType<typeof openModel>['setupClient'],
  table: string,
  records: DynamoDBRecord[],
) => {
  const expected = new Set(
    records.flatMap((r) => (readGrantRecord(tableChangeOf(r))?.timers ?? []).map((t) => t.due)),
  )
  const send: Send = <T>(command: { readonly input: object }) =>
    client.send(command as never) as Promise<T>
  let count = 0
  for (const slot of allTimerSlots()) {
    const items = await queryAll<{ due: string }>(send, {
      TableName: table,
      KeyConditionExpression: 'slot = :s',
      ExpressionAttributeValues: { ':s': slot },
      ProjectionExpression: 'due',
    })
    for (const item of items) if (expected.has(item.due)) count++
  }
  return count
}
