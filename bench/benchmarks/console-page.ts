/**
 * The console in its own process: bench/console.ts starts an `npm start` of its own (in memory),
 * signs a person in with headless Chromium and times the programs page's first render; the first
 * page's JavaScript, and the recipient's holdings page's, are measured on the build. Needs no database of the bench's.
 */

import type { ConsoleFigures } from '../console'
import type { Benchmark } from '../support/benchmark'
import { round } from '../support/report'
import { runScript } from '../support/script'

export const benchmark: Benchmark = {
  title:
    'console: first page and holdings page JavaScript, programs page first render (headless Chromium)',
  resultPath: ['console'],
  run: async (bench) => {
    const run = runScript<ConsoleFigures>(bench.root, 'bench/console.ts', 300_000)
    const { figures } = run
    return {
      result: run.figures ?? { failed: run.failed },
      rows: [
        {
          metric: 'console: first page JavaScript, gzip (KB)',
          value: figures ? String(round(figures.firstPageJsGzipBytes / 1024, 1)) : 'failed',
          target: '<= 50',
          met: figures !== undefined && figures.firstPageJsGzipBytes <= 50 * 1024,
        },
        {
          metric: "holdings page (/holdings): first load's JavaScript, gzip (KB)",
          value: figures ? String(round(figures.holdingsPageJsGzipBytes / 1024, 1)) : 'failed',
          target: '<= 30',
          met: figures !== undefined && figures.holdingsPageJsGzipBytes <= 30 * 1024,
        },
        {
          metric: 'console: programs page first render (ms, reported)',
          value: figures ? String(round(figures.programsFirstRenderMs, 0)) : 'failed',
        },
      ],
    }
  },
}
