import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import type { CloudWatchLogsEvent, SNSEvent } from 'aws-lambda'
import type { Runtime } from '../functions/composition'
import {
  CONSUMERS,
  type ConsumerId,
  type ConsumerSpec,
  OFFER_MAIL_QUEUE,
  QUEUES,
  type QueueId,
  WEBHOOKS_QUEUE,
} from '../functions/consumers'
import type { QueueSender } from '../functions/runtime/queue-sender'
import { makeGrantFiguresHandler } from '../functions/wiring/grant-figures.consumer'
import { makeGrantStreamHandler } from '../functions/wiring/grant-stream.consumer'
import { makeRuntimeRequestLogWriter } from '../functions/wiring/request-log.consumer'
import { LocalQueue, localQueueSender, pollOnce, type SqsBatchHandler } from './queue'
import { QueueHolds } from './queue-holds'
import { startRequestLogFlusher, type Ticker } from './request-log-flusher'
import {
  createStreamsClient,
  type GivenUp,
  type StreamHandler,
  StreamPoller,
  streamArnOf,
} from './stream-poller'

/**
 * What runs after a request has stored its change, in this process (`npm start`, the tests):
 * the AWS plumbing of functions/consumers.ts on local equivalents, calling the same handlers with
 * the same event shapes.
 *
 *   grants table's stream (DynamoDB Local's)  --local/stream-poller.ts, one per reader-->
 *     GrantStream handler, GrantFigures handler (the figures table)
 *   GrantStream -> OfferMail (local/queue.ts: visibility timeout, redelivery, dead letters) -> OfferMailer
 *   GrantBatchRows (the commit route sends to it through `senders`) -> GrantBatchWorker
 *   OfferSweep: every `periodSeconds` of real time, and on demand (runSchedule, after a test moves
 *   the clock).
 * MailEvents has no local trigger (SES's events exist only in AWS); tests call its handler with
 * the SES documents.
 *
 * Consumers are plugged in by their consumers.ts id; the stream readers (GrantStream,
 * GrantFigures) are built here unless given. A
 * queue whose consumer is missing keeps its messages (status shows them) and does not hold drain().
 * A held queue (hold(): tests against npm start) is the same, except for the messages it was told
 * to let through.
 */

export type ConsumerHandlers = {
  GrantStream?: StreamHandler
  GrantFigures?: StreamHandler
  OfferMailer?: SqsBatchHandler
  GrantBatchWorker?: SqsBatchHandler
  WebhookSender?: SqsBatchHandler
  MailEvents?: (event: SNSEvent) => Promise<unknown>
  /** No local trigger: under npm start the request log's flusher feeds the same writer. */
  RequestLog?: (event: CloudWatchLogsEvent) => Promise<unknown>
  OfferSweep?: () => Promise<unknown>
}

/** Builds a consumer's handler over the pipeline's runtime and queues: how npm start plugs them in. */
export type ConsumerFactory<K extends ConsumerId> = (
  runtime: Runtime,
  queues: Record<string, LocalQueue>,
) => NonNullable<ConsumerHandlers[K]>
export type ConsumerFactories = { [K in ConsumerId]?: ConsumerFactory<K> }

export type PipelineOptions = {
  runtime: Runtime
  consumers?: ConsumerFactories
  /** How often the stream is polled (ms of real time). Default 100. */
  pollMs?: number
  /** Read the grants table's stream (default true); false: only the queues and their consumers. */
  stream?: boolean
  /** Shards open at start: LATEST for kept data (npm start), TRIM_HORIZON (default) otherwise. */
  startAt?: 'LATEST' | 'TRIM_HORIZON'
  /** Run schedules on their period (npm start). Default false: tests call runSchedule. */
  schedules?: boolean
  /**
   * With `schedules`: run them every this many ms of real time instead of their AWS period (npm
   * start sweeps every few seconds, so a moved clock is acted on soon). Default: their period.
   */
  scheduleEveryMs?: number
  /** What a failing poll or consumer reports (default: console.error). */
  onError?: (message: string) => void
  /** For the calls made while starting (npm start's patient one, local/start-up-client.ts). */
  startUpClient?: DynamoDBClient
  /**
   * The request log (issue 33): the routes' entries buffered (this process's request log sink)
   * and written by the RequestLog writer every `everyMs` (local/request-log-flusher.ts, 250 by
   * default), as the Lambda writes them in AWS. `ticker`: a test's own clock for the ticks.
   * Absent: the routes' entries stay log lines.
   */
  requestLog?: { everyMs?: number; ticker?: Ticker }
}

export type PipelineStatus = {
  /** Stream records read but not handed over yet (a failed batch waiting for its retry). */
  streamPending: number
  queues: Record<string, ReturnType<LocalQueue['counts']>>
  /** Stream batches given up after their retries (Lambda's on-failure destination). */
  streamGivenUp: GivenUp[]
  /** Consumers plugged in, by id. */
  consumers: ConsumerId[]
  /** Queues held (hold()), each with how many more messages its consumer may take. */
  held: Record<string, { let: number }>
  /** Whether nothing is left that a consumer could do now. */
  idle: boolean
  /** Request log entries recorded and not written yet (with `requestLog`). */
  requestLogPending: number
}

export type LocalPipeline = {
  queues: Record<string, LocalQueue>
  /** A sender per queue, for the runtime of the routes that send (Runtime.queues). */
  senders: Record<QueueId, QueueSender>
  status(): PipelineStatus
  /**
   * Resolves once everything written before the call has gone through: the stream read past it,
   * every message a consumer can take now taken (messages waiting out a visibility timeout on the
   * injected clock do not count; move the clock and drain again). Rejects after `timeoutMs`.
   */
  drain(timeoutMs?: number): Promise<PipelineStatus>
  /** Runs a scheduled consumer now (OfferSweep) and waits for it: answers what it answered. */
  runSchedule(id: 'OfferSweep'): Promise<unknown>
  /**
   * Holds a queue's consumer (`hold`: true): it takes no message, or only the next `letThrough`
   * (each call sets that count anew); messages it holds wait, and do not hold drain(). Released
   * (`hold`: false), it takes them all again; `queue` undefined releases every queue. Messages a
   * consumer already took are finished either way. Throws on a queue with no consumer.
   */
  hold(queue: string | undefined, hold: boolean, letThrough?: number): PipelineStatus
  stop(): Promise<void>
}

/** Every consumer's handler, the stream readers built here unless given, over the runtime and queues. */
const buildHandlers = (options: PipelineOptions, queues: Record<string, LocalQueue>) => {
  const { runtime } = options
  const factories: ConsumerFactories = {
    GrantStream: (rt, qs) =>
      makeGrantStreamHandler(rt, {
        offerMail: localQueueSender(qs[OFFER_MAIL_QUEUE.id] as LocalQueue),
        webhooks: localQueueSender(qs[WEBHOOKS_QUEUE.id] as LocalQueue),
      }),
    GrantFigures: (rt) => makeGrantFiguresHandler(rt),
    ...options.consumers,
  }
  const handlers: ConsumerHandlers = {}
  for (const [id, factory] of Object.entries(factories) as [
    ConsumerId,
    ConsumerFactory<ConsumerId>,
  ][]) {
    ;(handlers as Record<string, unknown>)[id] = factory(runtime, queues)
  }
  return handlers
}

/**
 * A poller per stream reader of functions/consumers.ts plugged in (GrantStream, GrantFigures), each
 * reading DynamoDB Local's stream on its own as Lambda's mappings do (none with `stream` false).
 */
const startStreamPollers = async (
  options: PipelineOptions,
  handlers: ConsumerHandlers,
  onError: (message: string) => void,
) => {
  const { runtime } = options
  const endpoint = runtime.config.dynamodbEndpoint
  if (endpoint === undefined) throw new Error('The local pipeline needs DynamoDB Local')
  const streams = createStreamsClient(endpoint, runtime.config.awsRegion ?? 'local')
  const pollers: StreamPoller[] = []
  try {
    for (const spec of CONSUMERS as readonly ConsumerSpec[]) {
      const trigger = spec.trigger
      if (trigger.kind !== 'stream') continue
      const table = runtime.config.tables[trigger.table]
      // The table must have its stream whether or not this reader is plugged in.
      const streamArn = await streamArnOf(options.startUpClient ?? runtime.dynamodb, table)
      if (streamArn === undefined) {
        throw new Error(`Table ${table} has no stream: create the tables with local/tables.ts`)
      }
      const handler = handlers[spec.id as keyof ConsumerHandlers] as StreamHandler | undefined
      if (handler === undefined || options.stream === false) continue
      const poller = new StreamPoller({
        client: streams,
        streamArn,
        handler,
        batchSize: trigger.batchSize,
        retryAttempts: trigger.retryAttempts,
        startAt: options.startAt ?? 'TRIM_HORIZON',
        onGiveUp: (f) =>
          onError(`${spec.id} gave up ${f.records} records of ${f.shardId}: ${f.error}`),
      })
      await poller.start()
      pollers.push(poller)
    }
  } catch (error) {
    streams.destroy()
    throw error
  }
  return { streams, pollers }
}

/** Queue consumers with their event source settings. */
const queueConsumersOf = (handlers: ConsumerHandlers, queues: Record<string, LocalQueue>) =>
  CONSUMERS.flatMap((spec) => {
    const trigger = (spec as ConsumerSpec).trigger
    const handler = handlers[spec.id as keyof ConsumerHandlers]
    if (trigger.kind !== 'queue' || handler === undefined) return []
    const queue = queues[trigger.queue] as LocalQueue
    return [
      {
        id: spec.id,
        queue,
        handler: handler as SqsBatchHandler,
        batchSize: trigger.batchSize,
        concurrency: trigger.maxConcurrency ?? 5,
      },
    ]
  })
type QueueConsumer = ReturnType<typeof queueConsumersOf>[number]

/**
 * Pumps a queue until it has no visible message (or its hold lets no more), `concurrency` polls
 * at a time.
 */
const pump = async (
  c: QueueConsumer,
  holds: QueueHolds,
  takesNow: (c: QueueConsumer) => boolean,
  isStopped: () => boolean,
  onError: (message: string) => void,
) => {
  const worker = async () => {
    while (!isStopped() && takesNow(c)) {
      const max = holds.allowance(c.queue.spec.id, c.batchSize)
      const giveBack = holds.take(c.queue.spec.id, max)
      const outcome = await pollOnce(c.queue, c.handler, max)
      giveBack(outcome.received)
      if (outcome.error !== undefined) {
        const error = outcome.error
        onError(
          `${c.id}: batch of ${outcome.received} failed: ${error instanceof Error ? error.message : String(error)}`,
        )
      }
      if (outcome.received === 0) break
    }
  }
  await Promise.all(Array.from({ length: c.concurrency }, worker))
}

/** Schedules on real time (npm start); the sweep reads the runtime's clock. */
const startSchedules = (
  options: PipelineOptions,
  handlers: ConsumerHandlers,
  runSchedule: (id: 'OfferSweep') => Promise<unknown>,
  onError: (message: string) => void,
  scheduleTimers: NodeJS.Timeout[],
) => {
  for (const spec of CONSUMERS) {
    const trigger = (spec as ConsumerSpec).trigger
    if (trigger.kind !== 'schedule' || spec.id !== 'OfferSweep' || !handlers.OfferSweep) continue
    scheduleTimers.push(
      setInterval(
        () => {
          runSchedule('OfferSweep').catch((error) =>
            onError(`OfferSweep: ${error instanceof Error ? error.message : String(error)}`),
          )
        },
        options.scheduleEveryMs ?? trigger.periodSeconds * 1000,
      ),
    )
  }
}

/**
 * Resolves with the status once a pass that starts after the call ends idle; rejects after
 * `timeoutMs`.
 */
const waitForIdlePass = (
  after: number,
  timeoutMs: number,
  passWaiters: { after: number; resolve: () => void }[],
  status: () => PipelineStatus,
  wake: () => void,
) =>
  new Promise<PipelineStatus>((resolve, reject) => {
    const timeout = setTimeout(() => {
      const index = passWaiters.findIndex((w) => w.resolve === done)
      if (index >= 0) passWaiters.splice(index, 1)
      reject(
        new Error(
          `The local pipeline is not idle after ${timeoutMs} ms: ${JSON.stringify(status())}`,
        ),
      )
    }, timeoutMs)
    const done = () => {
      clearTimeout(timeout)
      resolve(status())
    }
    passWaiters.push({ after, resolve: done })
    wake()
  })

/** The request log's flusher over the runtime's writer, when asked for (npm start). */
const startRequestLog = (options: PipelineOptions, onError: (message: string) => void) =>
  options.requestLog === undefined
    ? undefined
    : startRequestLogFlusher({
        writer: makeRuntimeRequestLogWriter(options.runtime),
        ...options.requestLog,
        onError,
      })

export const startLocalPipeline = async (options: PipelineOptions): Promise<LocalPipeline> => {
  const { runtime } = options
  const onError = options.onError ?? ((message: string) => console.error(message))
  const pollMs = options.pollMs ?? 100
  const queues: Record<string, LocalQueue> = Object.fromEntries(
    QUEUES.map((q) => [q.id, new LocalQueue(q, runtime.clock)]),
  )
  const handlers = buildHandlers(options, queues)
  const { streams, pollers } = await startStreamPollers(options, handlers, onError)

  const queueConsumers = queueConsumersOf(handlers, queues)
  const requestLog = startRequestLog(options, onError)

  const holds = new QueueHolds()
  /** Whether `c` has a message it may take now (a held queue's others wait, as if unplugged). */
  const takesNow = (c: QueueConsumer) =>
    c.queue.counts().visible > 0 && holds.allowance(c.queue.spec.id, c.batchSize) > 0

  let stopped = false
  let streamPending = 0
  /** Each completed pass: its start time and whether it ended with nothing left to do. */
  let passes = 0
  const passWaiters: { after: number; resolve: () => void }[] = []
  let lastIdlePass = -1

  /**
   * Each queue's pump runs on its own (a 50,000-row batch does not hold up offer mail or the
   * stream): a pass starts the pumps that are not running, and is idle only when none is.
   */
  const pumping = new Map<string, Promise<void>>()
  const startPump = (c: (typeof queueConsumers)[number]) => {
    if (pumping.has(c.id) || !takesNow(c)) return
    const run = pump(c, holds, takesNow, () => stopped, onError).finally(() => {
      pumping.delete(c.id)
      wake()
    })
    pumping.set(c.id, run)
  }

  const pass = async () => {
    // Each reader reads until the stream has nothing new for it and nothing pending (a failed
    // batch waits for the next pass, as Lambda's retry does); the readers side by side.
    const pending = await Promise.all(
      pollers.map(async (poller) => {
        let left = 0
        for (let i = 0; i < 1000 && !stopped; i++) {
          const result = await poller.pollOnce()
          left = result.pending
          if (result.read === 0 && result.delivered === 0) break
        }
        return left
      }),
    )
    streamPending = pending.reduce((sum, n) => sum + n, 0)
    const streamIdle = streamPending === 0
    for (const c of queueConsumers) startPump(c)
    const queuesIdle = pumping.size === 0 && !queueConsumers.some(takesNow)
    return streamIdle && queuesIdle
  }

  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> = Promise.resolve()
  let active = false
  const loop = async () => {
    active = true
    const number = passes + 1
    try {
      const idle = await pass()
      if (idle) lastIdlePass = number
    } catch (error) {
      onError(`local pipeline: ${error instanceof Error ? error.message : String(error)}`)
    }
    passes = number
    for (const waiter of [...passWaiters]) {
      if (lastIdlePass > waiter.after) {
        passWaiters.splice(passWaiters.indexOf(waiter), 1)
        waiter.resolve()
      }
    }
    active = false
    if (!stopped) timer = setTimeout(() => (running = loop()), pollMs)
  }
  running = loop()
  /** Starts the next pass now instead of after pollMs (drain, a message sent). */
  const wake = () => {
    if (stopped || active) return
    if (timer) clearTimeout(timer)
    running = loop()
  }

  // Schedules on real time (npm start); the sweep reads the runtime's clock.
  const scheduleTimers: NodeJS.Timeout[] = []
  const runSchedule = async (id: 'OfferSweep'): Promise<unknown> => {
    const handler = handlers[id]
    if (handler === undefined) throw new Error(`No ${id} consumer plugged in`)
    return await handler()
  }
  if (options.schedules) startSchedules(options, handlers, runSchedule, onError, scheduleTimers)

  const status = (): PipelineStatus => ({
    streamPending,
    queues: Object.fromEntries(Object.entries(queues).map(([id, q]) => [id, q.counts()])),
    streamGivenUp: pollers.flatMap((poller) => poller.givenUp),
    consumers: Object.keys(handlers) as ConsumerId[],
    held: holds.view(),
    idle: streamPending === 0 && pumping.size === 0 && !queueConsumers.some(takesNow),
    requestLogPending: requestLog?.pending() ?? 0,
  })
  const hold = (queue: string | undefined, held: boolean, letThrough = 0) => {
    if (queue !== undefined && !queueConsumers.some((c) => c.queue.spec.id === queue)) {
      throw new Error(`No consumer takes from a queue ${queue} here`)
    }
    holds.set(queue, held, letThrough)
    wake()
    return status()
  }
  // A message sent starts its consumer now rather than at the next poll.
  const unsubscribe = queueConsumers.map((c) => c.queue.onSend(() => wake()))

  return {
    queues,
    senders: Object.fromEntries(
      QUEUES.map((q) => [q.id, localQueueSender(queues[q.id] as LocalQueue)]),
    ) as Record<QueueId, QueueSender>,
    status,
    drain: async (timeoutMs = 30_000) => {
      // The request log's entries recorded so far, written now rather than at the next tick.
      await requestLog?.flush()
      // A pass that starts after this call (the one running may have read the stream before
      // the caller's write) and ends idle.
      return waitForIdlePass(passes + 1, timeoutMs, passWaiters, status, wake)
    },
    runSchedule,
    hold,
    stop: async () => {
      await requestLog?.stop()
      stopped = true
      if (timer) clearTimeout(timer)
      for (const t of scheduleTimers) clearInterval(t)
      for (const off of unsubscribe) off()
      await running
      await Promise.allSettled([...pumping.values()])
      streams.destroy()
    },
  }
}
