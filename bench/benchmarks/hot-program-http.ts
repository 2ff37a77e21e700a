/** One hot program against 16, at concurrency 32, through the local HTTP server. */
import type { Benchmark } from '../support/benchmark'
import { round } from '../support/report'

export const benchmark: Benchmark = {
  title: 'one hot program versus 16 programs',
  resultPath: ['hotProgram'],
  run: async (bench) => {
    const api = await bench.localApi()
    const hot = await api.load([api.spread[0] as string], 32, 5)
    const wide = await api.load(api.spread, 32, 5)
    await bench.close()
    return {
      result: { hot, spread: wide },
      rows: [
        {
          metric: 'one program vs 16, concurrency 32 (req/s)',
          value: `${round(hot.rps, 0)} (conflicts ${hot.conflicts}, 409s ${hot.errors})`,
          baseline: `${round(wide.rps, 0)} (conflicts ${wide.conflicts}, 409s ${wide.errors})`,
          ratio: round(hot.rps / wide.rps),
        },
      ],
    }
  },
}
