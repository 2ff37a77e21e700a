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

// 41 interleaved imports of each (about 10 s): with 17, a busy machine moved the ratio by 0.03.
const IMPORTS = 41
// At most 1.2x the bare SDK's import (issue 18: headroom for the recipient and webhook work).
const IMPORT_TARGET = 1.2

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
    // Wall time, as a cold start waits for it; the CPU time beside it, which other processes on a
    // busy machine disturb less, is kept in results.json only.
    const importMs = (file: string) => {
      const script = `const c=process.cpuUsage();const t=performance.now();await import(${JSON.stringify(`file://${file}`)});const w=performance.now()-t;const u=process.cpuUsage(c);process.stdout.write(JSON.stringify([w,(u.user+u.system)/1000]))`
      const run = spawnSync(
        process.execPath,
        ['--enable-source-maps', '--input-type=module', '-e', script],
        { env, encoding: 'utf8' },
      )
      if (run.status !== 0) throw new Error(run.stderr)
      return JSON.parse(run.stdout) as [number, number]
    }
    const imports = { production: [] as number[], baseline: [] as number[] }
    const importCpu = { production: [] as number[], baseline: [] as number[] }
    for (let i = 0; i < IMPORTS; i++) {
      for (const side of i % 2 === 0
        ? (['production', 'baseline'] as const)
        : (['baseline', 'production'] as const)) {
        const [wall, cpu] = importMs(side === 'production' ? production.outfile : baseline.outfile)
        imports[side].push(wall)
        importCpu[side].push(cpu)
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
        importCpuMs: importCpu,
        importCpuRatio: round(median(importCpu.production) / median(importCpu.baseline)),
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
          target: `<= ${IMPORT_TARGET}`,
          met: importRatio <= IMPORT_TARGET,
        },
      ],
    }
  },
}
