/**
 * Send to many at scale in the contention model (bench/contention/batch-rows.ts): a 50,000-row
 * batch on one program through today's worker, with GrantBatchWorker's numbers as a plain
 * `npx cdk deploy` builds them (BATCH_WORK: maxConcurrency invocations, each granting
 * rowsInParallel rows at once, two chunks an invocation), and a batch larger than its program's pool. Figures
 * are the model's virtual time, never DynamoDB Local's wall clock. Alone:
 * `BENCH_ONLY=batch-model npm run bench` (a few minutes: DynamoDB Local does every row's work).
 */
import { BATCH_WORK } from '../../functions/consumers'
import { type BatchModelRun, runBatchModel } from '../contention/batch-rows'
import { MODEL_DEFAULTS } from '../contention/dynamodb-model'
import type { Benchmark } from '../support/benchmark'
import { type Row, round } from '../support/report'

const FULL = { rows: 50_000 }
const SHORT = { rows: 10_000, pool: 7_500 }

const describe = (r: BatchModelRun) =>
  `${round(r.rowsPerSecond, 0)} rows/s (${round(r.virtualSeconds, 1)} s), granted ${r.granted}, failed ${r.failed}${r.failed > 0 ? ` (${JSON.stringify(r.failedCodes)})` : ''}, issued ${r.issued} of pool ${r.pool}, ${r.grantItems} grant items, ${r.deliveries} deliveries of ${r.chunks} chunks, chunk p50/max ${round(r.chunkSecondsP50, 2)}/${round(r.chunkSecondsMax, 2)} s, ${r.transactionConflicts} conflicts, ${r.throttles} throttles, ${round(r.callsPerRow, 2)} calls/row`

export const benchmark: Benchmark = {
  title: 'send to many: a 50,000-row batch in the contention model (virtual time; a few minutes)',
  resultPath: ['batchModel'],
  run: async (bench) => {
    const { endpoint, tables } = await bench.dynamoDbLocal()
    const full = await runBatchModel({
      endpoint,
      tables,
      ...FULL,
      onProgress: (line) => {
        if (line.includes('00 deliveries')) bench.log(`  ${line}`)
      },
    })
    const short = await runBatchModel({ endpoint, tables, ...SHORT })
    const bound = `${BATCH_WORK.maxConcurrency} invocations x ${BATCH_WORK.rowsInParallel} rows`
    const rows: Row[] = [
      {
        metric: `model: send to many, ${FULL.rows} rows on one program, ${bound}`,
        value: `${describe(full)}; exact ${full.exact}`,
        target: '>= 1000 rows/s, exact (issued = rows = grant items), one delivery per chunk',
        met: full.rowsPerSecond >= 1_000 && full.exact && full.deliveries === full.chunks,
      },
      {
        metric: `model: send to many, ${SHORT.rows} rows, pool ${SHORT.pool}, ${bound}`,
        value: `${describe(short)}; exact ${short.exact}`,
        target: `exact: ${SHORT.pool} granted, the rest pool_exhausted, issued = pool`,
        met: short.exact,
      },
    ]
    return {
      rows,
      result: { params: MODEL_DEFAULTS, batchWork: BATCH_WORK, full, short },
    }
  },
}
