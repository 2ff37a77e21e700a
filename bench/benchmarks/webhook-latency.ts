/**
 * Webhooks (issue 21): the time from a grant's state change to its delivery at a receiver, under a
 * real `npm start` in its own process (bench/webhooks.ts). Reported (p50, p99); no target.
 */
import { spawnSync } from 'node:child_process'
import type { Benchmark } from '../support/benchmark'
import type { WebhookLatency } from '../webhooks'

export const benchmark: Benchmark = {
  title: 'webhooks: state change to delivery at a receiver under npm start (verified)',
  resultPath: ['webhooks'],
  run: async (bench) => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/webhooks.ts'], {
      cwd: bench.root,
      encoding: 'utf8',
      timeout: 600_000,
    })
    const line = run.stdout.split('\n').find((l) => l.startsWith('{'))
    const figures = run.status === 0 && line ? (JSON.parse(line) as WebhookLatency) : undefined
    if (!figures) console.error(`webhooks bench failed:\n${run.stderr.slice(-4000)}`)
    const value = (f: (w: WebhookLatency) => number) => (figures ? String(f(figures)) : 'failed')
    return {
      result: figures ?? { failed: run.stderr.slice(-2000) },
      rows: [
        {
          metric: 'webhooks: grant made -> grant.created at the receiver, p50 / p99 (ms, reported)',
          value: figures
            ? `${value((w) => w.created.p50)} / ${value((w) => w.created.p99)}`
            : 'failed',
        },
        {
          metric:
            'webhooks: grant canceled -> grant.canceled at the receiver, p50 / p99 (ms, reported)',
          value: figures
            ? `${value((w) => w.canceled.p50)} / ${value((w) => w.canceled.p99)}`
            : 'failed',
        },
      ],
    }
  },
}
