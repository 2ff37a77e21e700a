/**
 * The grant function's bundle, built with the stack's esbuild options (lib/esbuild-options.ts),
 * against a handler that only creates the DynamoDB document client (bench/baseline-handler.ts):
 * size, gzip size, and the time to import each in a fresh Node.js process, interleaved.
 * Needs no database: `BENCH_ONLY=cold-start npm run bench` runs it alone.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { ENV } from '../../functions/env-names'
import { tableNames } from '../../functions/stores/table-schema'
import { esbuildOptions } from '../../lib/esbuild-options'
import { tableEnvironment } from '../../local/local-env'
import type { Benchmark } from '../support/benchmark'
import { median, round } from '../support/report'

const IMPORTS = 17

export const benchmark: Benchmark = {
  title: 'bundle size and import time',
  resultPath: ['coldStart'],
  run: async (bench) => {
    const out = mkdtempSync(join(tmpdir(), 'vs-bench-'))
    const bundle = async (entry: string, name: string) => {
      const outfile = join(out, name, 'index.mjs')
      await build(esbuildOptions(resolve(bench.root, entry), outfile))
      const code = readFileSync(outfile)
      return { outfile, bytes: statSync(outfile).size, gzip: gzipSync(code).length }
    }
    const production = await bundle('functions/handlers/grant-tokens.handler.ts', 'grant')
    const baseline = await bundle('bench/baseline-handler.ts', 'baseline')
    // The environment the stack gives the function: its table names, no DynamoDB endpoint.
    const env = {
      ...bench.env,
      ...tableEnvironment(tableNames('bench')),
      [ENV.dynamodbEndpoint]: '',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      AWS_REGION: 'eu-west-1',
    }
    const importMs = (file: string) => {
      const script = `const t=performance.now();await import(${JSON.stringify(`file://${file}`)});process.stdout.write(String(performance.now()-t))`
      const run = spawnSync(
        process.execPath,
        ['--enable-source-maps', '--input-type=module', '-e', script],
        { env, encoding: 'utf8' },
      )
      if (run.status !== 0) throw new Error(run.stderr)
      return Number(run.stdout)
    }
    const imports = { production: [] as number[], baseline: [] as number[] }
    for (let i = 0; i < IMPORTS; i++) {
      for (const side of i % 2 === 0
        ? (['production', 'baseline'] as const)
        : (['baseline', 'production'] as const)) {
        imports[side].push(importMs(side === 'production' ? production.outfile : baseline.outfile))
      }
    }
    const sizeRatio = production.bytes / baseline.bytes
    const gzipRatio = production.gzip / baseline.gzip
    const importRatio = median(imports.production) / median(imports.baseline)
    return {
      result: {
        production: { bytes: production.bytes, gzip: production.gzip },
        baseline: { bytes: baseline.bytes, gzip: baseline.gzip },
        importMs: imports,
      },
      rows: [
        {
          metric: 'bundle, minified (KB)',
          value: String(round(production.bytes / 1024, 1)),
          baseline: String(round(baseline.bytes / 1024, 1)),
          ratio: round(sizeRatio),
          target: '<= 1.3',
          met: sizeRatio <= 1.3,
        },
        {
          metric: 'bundle, gzip (KB)',
          value: String(round(production.gzip / 1024, 1)),
          baseline: String(round(baseline.gzip / 1024, 1)),
          ratio: round(gzipRatio),
          target: '<= 1.3',
          met: gzipRatio <= 1.3,
        },
        {
          metric: `import time, median of ${IMPORTS} (ms)`,
          value: String(round(median(imports.production), 1)),
          baseline: String(round(median(imports.baseline), 1)),
          ratio: round(importRatio),
          target: '<= 1.25',
          met: importRatio <= 1.25,
        },
      ],
    }
  },
}
