/**
 * The console in its own process: bench/console.ts starts an `npm start` of its own (in memory),
 * signs a person in with headless Chromium and times the programs page's first render; the first
 * page's JavaScript is measured on the build. Needs no database of the bench's.
 */
import { spawnSync } from 'node:child_process'
import type { Benchmark } from '../support/benchmark'
import { round } from '../support/report'

export const benchmark: Benchmark = {
  title: 'console: first page JavaScript and programs page first render (headless Chromium)',
  resultPath: ['console'],
  run: async (bench) => {
    const consoleRun = spawnSync(process.execPath, ['--import', 'tsx', 'bench/console.ts'], {
      cwd: bench.root,
      encoding: 'utf8',
      timeout: 300_000,
    })
    const figures =
      consoleRun.status === 0
        ? (JSON.parse(consoleRun.stdout.slice(consoleRun.stdout.indexOf('{'))) as {
            firstPageJsGzipBytes: number
            programsFirstRenderMs: number
          })
        : undefined
    if (!figures) console.error(`console bench failed:\n${consoleRun.stderr}`)
    return {
      result: figures ?? { failed: consoleRun.stderr.slice(-2000) },
      rows: [
        {
          metric: 'console: first page JavaScript, gzip (KB)',
          value: figures ? String(round(figures.firstPageJsGzipBytes / 1024, 1)) : 'failed',
          target: '<= 50',
          met: figures !== undefined && figures.firstPageJsGzipBytes <= 50 * 1024,
        },
        {
          metric: 'console: programs page first render (ms, reported)',
          value: figures ? String(round(figures.programsFirstRenderMs, 0)) : 'failed',
        },
      ],
    }
  },
}
