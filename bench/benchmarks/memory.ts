/**
 * The heap after GC over 20,000 grants from 16 concurrent callers (flat after warm-up), and the
 * process's peak RSS after the HTTP load (http-concurrency.ts), or now when run without it.
 * `npm run bench` runs node with --expose-gc.
 */
import type { Benchmark } from '../support/benchmark'
import { round } from '../support/report'

export const benchmark: Benchmark = {
  title: 'heap over 20,000 grants',
  resultPath: ['memory'],
  run: async (bench) => {
    const db = await bench.database()
    const rssAfterLoad = bench.measures.rssAfterLoadKB ?? process.resourceUsage().maxRSS
    const gc = (globalThis as { gc?: () => void }).gc
    const heap = () => {
      gc?.()
      return process.memoryUsage().heapUsed / 1024 / 1024
    }
    const samples: { grants: number; heapMB: number }[] = []
    let done = 0
    const worker = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await db.invoke(db.grantEvent(db.apiKey, db.programIds[(done + i) % 16]))
      }
    }
    for (const checkpoint of [2_000, 5_000, 10_000, 15_000, 20_000]) {
      const batch = checkpoint - done
      await Promise.all(
        Array.from({ length: 16 }, (_, w) =>
          worker(Math.floor(batch / 16) + (w < batch % 16 ? 1 : 0)),
        ),
      )
      done = checkpoint
      samples.push({ grants: done, heapMB: round(heap(), 1) })
    }
    const afterWarmup = samples[1]?.heapMB ?? 0
    const growth = (samples.at(-1)?.heapMB ?? 0) - afterWarmup
    return {
      result: {
        peakRssMB: round(rssAfterLoad / 1024, 1),
        heap: samples,
        growthAfterWarmupMB: round(growth, 1),
        gcExposed: gc !== undefined,
      },
      rows: [
        {
          metric: 'peak RSS of the server process (MB)',
          value: String(round(rssAfterLoad / 1024, 1)),
        },
        {
          metric: 'heap after GC at 5k/10k/15k/20k grants (MB)',
          value: samples
            .slice(1)
            .map((s) => s.heapMB)
            .join(' / '),
          target: 'flat after warm-up',
          met: growth < 5,
        },
      ],
    }
  },
}
