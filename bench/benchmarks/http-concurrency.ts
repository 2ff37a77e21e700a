/**
 * Throughput through the local HTTP server at concurrency 1, 16 and 64 (autocannon in its own
 * process), grants spread over the 16 programs; with the handler's and DynamoDB's share of each
 * request. Leaves the process's peak RSS after the load for the memory benchmark.
 */
import type { Benchmark } from '../support/benchmark'
import type { LoadResult } from '../support/context'
import { round } from '../support/report'

export const benchmark: Benchmark = {
  title: 'throughput through the local HTTP server (autocannon)',
  resultPath: ['throughput'],
  run: async (bench) => {
    const api = await bench.localApi()
    const throughput: Record<string, LoadResult> = {}
    for (const c of [1, 16, 64]) throughput[`c${c}`] = await api.load(api.spread, c, 5)
    bench.measures.rssAfterLoadKB = process.resourceUsage().maxRSS
    return {
      result: throughput,
      rows: Object.entries(throughput).map(([c, t]) => ({
        metric: `HTTP ${c.replace('c', 'concurrency ')}: req/s, p50/p99 ms, errors`,
        value: `${round(t.rps, 0)} req/s, ${t.p50}/${t.p99} ms, ${t.errors} errors`,
        baseline: `handler ${round(t.handlerMsPerRequest)} ms of which DynamoDB ${round(t.dbMsPerRequest)} ms`,
        target: '0 errors',
        met: t.errors === 0,
      })),
    }
  },
}
