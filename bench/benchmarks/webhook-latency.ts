/**
 * Webhooks (issue 21): the time from a grant's state change to its delivery at a receiver, under a
 * real `npm start` in its own process (bench/webhooks.ts). Reported (p50, p99); no target.
 */

import type { Benchmark } from '../support/benchmark'
import { runScript } from '../support/script'
import type { WebhookLatency } from '../webhooks'

export const benchmark: Benchmark = {
  title: 'webhooks: state change to delivery at a receiver under npm start (verified)',
  resultPath: ['webhooks'],
  run: async (bench) => {
    const run = runScript<WebhookLatency>(bench.root, 'bench/webhooks.ts', 600_000)
    const { figures } = run
    const value = (f: (w: WebhookLatency) => number) => (figures ? String(f(figures)) : 'failed')
    return {
      result: run.figures ?? { failed: run.failed },
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
