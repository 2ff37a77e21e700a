/**
 * The grant function's bundle, built with the stack's esbuild options (lib/esbuild-options.ts),
 * against a handler that only creates the DynamoDB document client (bench/baseline-handler.ts):
 * size, gzip size, and the time to import each in a fresh Node.js process, interleaved. The
 * target is measured on the Node.js that Lambda runs (bench/support/lambda-node.ts); the running
 * Node.js's figure, when it is another major, is reported beside it without a target.
 * Needs no database: `BENCH_ONLY=cold-start npm run bench` runs it alone.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { ENV } from '../../functions/env-names'
import { tableNames } from '../../functions/table-schema'
import { esbuildOptions } from '../../lib/esbuild-options'
import { tableEnvironment } from '../../local/local-env'
import type { Benchmark } from '../support/benchmark'
import { LAMBDA_NODE_MAJOR, lambdaNode } from '../support/lambda-node'
import { median, ratioRow, round } from '../support/report'

// 41 interleaved imports of each (about 10 s): with 17, a busy machine moved the ratio by 0.03.
const IMPORTS = 41
// At most 1.2x the bare SDK's import on Lambda's Node.js (issue 18: headroom for the recipient
// and webhook work; issue 30: measured on the runtime the stack deploys).
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
    const importMs = (node: string, file: string) => {
      const script = `const c=process.cpuUsage();const t=performance.now();await import(${JSON.stringify(`file://${file}`)});const w=performance.now()-t;const u=process.cpuUsage(c);process.stdout.write(JSON.stringify([w,(u.user+u.system)/1000]))`
      const run = spawnSync(node, ['--enable-source-maps', '--input-type=module', '-e', script], {
        env,
        encoding: 'utf8',
      })
      if (run.status !== 0) throw new Error(run.stderr)
      return JSON.parse(run.stdout) as [number, number]
    }
    const lambda = lambdaNode()
    const machine = { path: process.execPath, version: process.version }
    const nodes = lambda.path === machine.path ? [lambda] : [lambda, machine]
    const measured = nodes.map((node) => {
      const wall = { production: [] as number[], baseline: [] as number[] }
      const cpu = { production: [] as number[], baseline: [] as number[] }
      for (let i = 0; i < IMPORTS; i++) {
        for (const side of i % 2 === 0
          ? (['production', 'baseline'] as const)
          : (['baseline', 'production'] as const)) {
          const file = side === 'production' ? production.outfile : baseline.outfile
          const [ms, cpuMs] = importMs(node.path, file)
          wall[side].push(ms)
          cpu[side].push(cpuMs)
        }
      }
      return {
        node: node.version,
        importMs: wall,
        importCpuMs: cpu,
        ratio: median(wall.production) / median(wall.baseline),
        importCpuRatio: round(median(cpu.production) / median(cpu.baseline)),
      }
    })
    const [onLambda, onMachine] = measured as [(typeof measured)[0], ...typeof measured]
    return {
      result: {
        production: { bytes: production.bytes, gzip: production.gzip },
        baseline: { bytes: baseline.bytes, gzip: baseline.gzip },
        // The target's figures (on Lambda's Node.js), then the running Node.js's, if another.
        node: onLambda.node,
        importMs: onLambda.importMs,
        importCpuMs: onLambda.importCpuMs,
        importCpuRatio: onLambda.importCpuRatio,
        ...(onMachine ? { machineNode: { ...onMachine, ratio: round(onMachine.ratio) } } : {}),
      },
      rows: [
        ...(['bytes', 'gzip'] as const).map((size) =>
          ratioRow(
            size === 'bytes' ? 'bundle, minified (KB)' : 'bundle, gzip (KB)',
            production[size],
            baseline[size],
            1.3,
            {
              value: String(round(production[size] / 1024, 1)),
              baseline: String(round(baseline[size] / 1024, 1)),
            },
          ),
        ),
        ratioRow(
          `import time on Node.js ${onLambda.node} (Lambda's), median of ${IMPORTS} (ms)`,
          median(onLambda.importMs.production),
          median(onLambda.importMs.baseline),
          IMPORT_TARGET,
          {
            value: String(round(median(onLambda.importMs.production), 1)),
            baseline: String(round(median(onLambda.importMs.baseline), 1)),
          },
        ),
        ...(onMachine
          ? [
              {
                metric: `import time on Node.js ${onMachine.node} (this machine's; Lambda runs ${LAMBDA_NODE_MAJOR})`,
                value: String(round(median(onMachine.importMs.production), 1)),
                baseline: String(round(median(onMachine.importMs.baseline), 1)),
                ratio: round(onMachine.ratio),
              },
            ]
          : []),
      ],
    }
  },
}
