/**
 * The grants stream and its readers in the contention model (bench/contention/grant-stream-model.ts):
 * GrantStream's IteratorAge at 1,000 and 2,000 grants a second on one program, with the mapping
 * deployed before issue 30 (one batch of 100 at a time per shard) and with today's
 * (functions/consumers.ts), and today's again with SQS twice as slow; then the second reader,
 * GrantFigures (issue 32), at the same rates: its lag is its own (no target: figures may lag, no
 * mail waits for them). Virtual time: figures are the model's, never DynamoDB Local's wall clock.
 */
import {
  deployedStreamSettings,
  runGrantStreamModel,
  STREAM_DEFAULTS,
  type StreamModelRun,
  type StreamReader,
  type StreamSettings,
} from '../contention/grant-stream-model'
import type { Benchmark } from '../support/benchmark'
import { type Row, round } from '../support/report'

/** Seconds of arrivals at each rate: a backlog that grows shows in its maximum. */
const SECONDS = 20
const TARGET_MS = 5_000
/** The mapping before issue 30: Lambda's default of one batch at a time per shard. */
const BEFORE: StreamSettings = {
  batchSize: 100,
  batchingWindowSeconds: 1,
  parallelizationFactor: 1,
}

const s = (ms: number) => round(ms / 1_000, 2)
const exact = (r: StreamModelRun) =>
  r.reader === 'GrantFigures' ? r.givenUp === 0 && r.outOfOrder === 0 : exactStream(r)
const exactStream = (r: StreamModelRun) =>
  r.mailed === r.records &&
  r.events === r.records &&
  r.timersWritten === 2 * r.records &&
  r.givenUp === 0 &&
  r.outOfOrder === 0
const describe = (r: StreamModelRun) =>
  `iterator age p50/p99/max ${s(r.iteratorAgeMs.p50)}/${s(r.iteratorAgeMs.p99)}/${s(r.iteratorAgeMs.max)} s; oldest record's wait p99/max ${s(r.recordWaitMs.p99)}/${s(r.recordWaitMs.max)} s; ${r.records.toLocaleString('en')} records in ${r.invocations} invocations (mean batch ${round(r.meanBatch, 0)}), last handed over at ${round(r.drainedSeconds, 1)} s; ${r.throttles} writes throttled, ${r.partialFailures} records failed and retried; ${round(r.dynamoDbCallsPerRecord, 3)} DynamoDB calls and ${round(r.sqsCallsPerRecord, 3)} SendMessageBatch a record; exact ${exact(r)}`
const label = (x: StreamSettings) =>
  `${x.parallelizationFactor} batch${x.parallelizationFactor === 1 ? '' : 'es'} of ${x.batchSize} per shard at once, ${x.batchingWindowSeconds} s window`

export const benchmark: Benchmark = {
  title:
    'the grants stream, GrantStream and GrantFigures, in the contention model (virtual time; a few minutes)',
  resultPath: ['streamModel'],
  run: async (bench) => {
    const { endpoint, tables } = await bench.dynamoDbLocal()
    const now = deployedStreamSettings()
    const figures = deployedStreamSettings('GrantFigures')
    const slowSqs = {
      ...STREAM_DEFAULTS,
      sqs: { medianMs: 2 * STREAM_DEFAULTS.sqs.medianMs, p99Ms: 2 * STREAM_DEFAULTS.sqs.p99Ms },
    }
    const cases = [
      { name: 'before', settings: BEFORE, rate: 1_000 },
      { name: 'before', settings: BEFORE, rate: 2_000 },
      { name: 'now', settings: now, rate: 1_000 },
      { name: 'now', settings: now, rate: 2_000 },
      { name: 'now, SQS twice as slow', settings: now, rate: 2_000, stream: slowSqs },
      { name: 'now', settings: figures, rate: 1_000, reader: 'GrantFigures' as StreamReader },
      { name: 'now', settings: figures, rate: 2_000, reader: 'GrantFigures' as StreamReader },
    ]
    const rows: Row[] = []
    const runs: Record<string, StreamModelRun> = {}
    for (const c of cases) {
      const reader = c.reader ?? 'GrantStream'
      const run = await runGrantStreamModel({
        reader,
        endpoint,
        tables,
        rate: c.rate,
        seconds: SECONDS,
        settings: c.settings,
        ...(c.stream ? { stream: c.stream } : {}),
        readBack: true,
      })
      runs[`${reader === 'GrantStream' ? '' : `${reader} `}${c.name} ${c.rate}`] = run
      const metric = `model: grants stream read by ${reader}, ${c.rate.toLocaleString('en')} grants/s for ${SECONDS} s, ${c.name}: ${label(c.settings)} (\`stream-model\`)`
      // GrantFigures' lag is reported, not held to the target: no mail or timer waits for it.
      rows.push(
        reader === 'GrantStream'
          ? {
              metric,
              value: describe(run),
              target: `iterator age < ${TARGET_MS / 1_000} s, exact`,
              met: run.iteratorAgeMs.max < TARGET_MS && exact(run),
            }
          : { metric, value: describe(run) },
      )
    }
    return { rows, result: { stream: STREAM_DEFAULTS, seconds: SECONDS, runs } }
  },
}
