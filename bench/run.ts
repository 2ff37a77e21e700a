/**
 * `npm run bench`: every figure measured side by side with its baseline in one run, on this
 * machine, against DynamoDB Local. Prints a table and writes bench/results.json.
 * Not a test: nothing here fails a build; the targets are reported as met or missed.
 *
 * The runner: one module per benchmark (bench/benchmarks/), run in the order below. It is the
 * bench's only reader of the environment. `BENCH_ONLY=key[,key]` runs those alone: their rows and
 * figures replace their earlier ones in bench/results.json, dated on their own.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { tableNames } from '../functions/table-schema'
import { startDynamoDbLocal } from '../local/dynamodb-local'
import { functionEnvironment, tableEnvironment } from '../local/local-env'
import type { Benchmark } from './support/benchmark'
import {
  type Environment,
  formatTable,
  mergeRows,
  type Results,
  type Row,
  round,
  setAt,
} from './support/report'

/** Every benchmark, in the table's order: its BENCH_ONLY key, module, and need of DynamoDB Local. */
const BENCHMARKS = [
  { key: 'round-trips', module: './benchmarks/round-trips.ts', database: true },
  { key: 'handler-latency', module: './benchmarks/handler-latency.ts', database: true },
  { key: 'manage-reads', module: './benchmarks/manage-reads.ts', database: true },
  { key: 'link-timing', module: './benchmarks/link-timing.ts', database: true },
  { key: 'cold-start', module: './benchmarks/cold-start.ts', database: false },
  { key: 'http-concurrency', module: './benchmarks/http-concurrency.ts', database: true },
  { key: 'hot-program-http', module: './benchmarks/hot-program-http.ts', database: true },
  { key: 'contention-model', module: './benchmarks/contention-model.ts', database: true },
  {
    key: 'offer-expiry-model',
    module: './benchmarks/contention-offer-expiry.ts',
    database: true,
  },
  { key: 'stream-model', module: './benchmarks/grant-stream-model.ts', database: true },
  { key: 'rate-limit-model', module: './benchmarks/rate-limit-model.ts', database: false },
  { key: 'figures-cost', module: './benchmarks/figures-cost.ts', database: true },
  { key: 'mixed-pool', module: './benchmarks/mixed-pool.ts', database: true },
  { key: 'batch-local', module: './benchmarks/batch-local.ts', database: true },
  { key: 'batch-model', module: './benchmarks/batch-model.ts', database: true },
  { key: 'upload-batch', module: './benchmarks/upload-batch.ts', database: false },
  { key: 'webhook-latency', module: './benchmarks/webhook-latency.ts', database: false },
  { key: 'memory', module: './benchmarks/memory.ts', database: true },
  { key: 'console', module: './benchmarks/console-page.ts', database: false },
] as const

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const RESULTS = join(ROOT, 'bench/results.json')
const started = Date.now()

const only = process.env.BENCH_ONLY?.split(',')
  .map((key) => key.trim())
  .filter((key) => key !== '')
const unknown = only?.filter((key) => !BENCHMARKS.some((b) => b.key === key)) ?? []
if (unknown.length > 0) {
  process.stderr.write(
    `BENCH_ONLY: no benchmark ${unknown.join(', ')}; one of ${BENCHMARKS.map((b) => b.key).join(', ')}\n`,
  )
  process.exit(1)
}
const selected = only === undefined ? BENCHMARKS : BENCHMARKS.filter((b) => only.includes(b.key))

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true'
const dynamo = selected.some((b) => b.database) ? await startDynamoDbLocal() : undefined
const tables = tableNames('bench')
const functionEnv = {
  // Without DynamoDB Local, the table names alone: what reads a configuration at import needs them.
  ...(dynamo ? functionEnvironment(dynamo.endpoint, tables) : tableEnvironment(tables)),
  POWERTOOLS_LOG_LEVEL: 'INFO', // what the stack deploys
  POWERTOOLS_SERVICE_NAME: 'virtual-share-grants',
}
// The configuration and clients are built from `env` (bench/support/context.ts). The environment
// of this process is set as well, for what still reads it at import: the handler modules' own
// wiring and Powertools' log level.
const env = { ...process.env, ...functionEnv }
Object.assign(process.env, functionEnv)
const { createBenchContext } = await import('./support/context')
const bench = createBenchContext({
  root: ROOT,
  env,
  ...(dynamo ? { database: { endpoint: dynamo.endpoint, tables } } : {}),
})

const rows: Row[] = []
const results: Record<string, unknown> = {}
const measured: { path: readonly string[]; result: Record<string, unknown> }[] = []
const failed: string[] = []
// Request logs go to stdout in Lambda; here they are formatted as usual and dropped for the whole
// run (requests still in flight when a benchmark ends log after it); the table is written past it.
bench.muteLogs()
for (const [i, entry] of selected.entries()) {
  const { benchmark } = (await import(entry.module)) as { benchmark: Benchmark }
  bench.log(`${i + 1}/${selected.length} ${benchmark.title}`)
  let outcome: Awaited<ReturnType<Benchmark['run']>>
  try {
    outcome = await benchmark.run(bench)
  } catch (error) {
    // One benchmark that cannot finish (DynamoDB Local stalled on a busy machine, say) costs its
    // own figures, not the others': its row says so and the run goes on.
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
    bench.log(`${entry.key} failed: ${message}`)
    // Where it failed, for whoever reads the log (the table keeps the one line).
    if (error instanceof Error && error.stack) bench.log(error.stack)
    failed.push(entry.key)
    outcome = {
      rows: [{ metric: `${entry.key}: failed`, value: message.slice(0, 200) }],
      result: { failed: message },
    }
  }
  rows.push(...outcome.rows)
  setAt(results, benchmark.resultPath, outcome.result)
  measured.push({ path: benchmark.resultPath, result: outcome.result })
  // DynamoDB Local stops as soon as no benchmark left needs it (the console's runs without it).
  if (dynamo && !selected.slice(i + 1).some((b) => b.database)) {
    await bench.close()
    await dynamo.stop()
  }
}

if (only === undefined) {
  const environment: Environment = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    seconds: round((Date.now() - started) / 1000, 0),
    logBytesDropped: bench.logBytesDropped(),
  }
  writeFileSync(RESULTS, `${JSON.stringify({ environment, rows, results }, null, 2)}\n`)
  bench.realStdout(
    `${formatTable(
      `Benchmark ${environment.date} - Node ${environment.node} - ${environment.cpu} x${environment.cores} - ${environment.seconds}s`,
      rows,
    )}\n`,
  )
} else {
  const previous = JSON.parse(readFileSync(RESULTS, 'utf8')) as Results
  const dated = { date: new Date().toISOString(), node: process.version }
  for (const { path, result } of measured) setAt(previous.results, path, { ...dated, ...result })
  previous.rows = mergeRows(previous.rows, rows)
  writeFileSync(RESULTS, `${JSON.stringify(previous, null, 2)}\n`)
  bench.realStdout(
    `${formatTable(`Benchmark ${dated.date} - Node ${dated.node} - BENCH_ONLY=${only.join(',')}`, rows)}\n`,
  )
}
// A missed target is a figure, not a failure; a benchmark that could not run is.
process.exit(failed.length === 0 ? 0 : 1)
