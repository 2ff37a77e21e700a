/**
 * Mixed amounts: one program with a pool of 10,000,000 in the contention model: 256 clients send
 * 10,000 grants of 1 to 2,000 shares (uniform, from a seeded stream of their own: they ask
 * 10,021,641, so the pool runs out in the last few dozen), each retried as the bundled client
 * retries (client/src/grant-client.ts). Alone: `BENCH_ONLY=mixed-pool npm run bench`.
 */
import { seededRandom } from '../../test/support/fault-injector'
import { runHotProgram } from '../contention/hot-program'
import type { Benchmark } from '../support/benchmark'
import { round } from '../support/report'

const MIXED = { pool: 10_000_000, concurrency: 256, requests: 10_000, maxAmount: 2_000, seed: 2 }

export const benchmark: Benchmark = {
  title: 'mixed amounts on one pool in the contention model (virtual time)',
  resultPath: ['contentionModel', 'mixedPool'],
  run: async (bench) => {
    const { endpoint, tables } = await bench.dynamoDbLocal()
    const draw = seededRandom(MIXED.seed)
    const amounts = Array.from(
      { length: MIXED.requests },
      () => 1 + Math.floor(draw() * MIXED.maxAmount),
    )
    const run = await runHotProgram({
      design: 'sharded',
      concurrency: MIXED.concurrency,
      requests: MIXED.requests,
      pool: MIXED.pool,
      amount: (n) => amounts[n] as number,
      client: 'bundled',
      endpoint,
      tables,
    })
    const asked = amounts.reduce((a, b) => a + b, 0)
    const exact =
      run.issued === run.grantedAmount &&
      run.acknowledgedAmount === run.grantedAmount &&
      (run.issued ?? 0) + (run.remainingAtEnd ?? 0) === MIXED.pool
    const conflictShare = run.conflictAnswers / run.requests
    const met =
      exact &&
      conflictShare <= 0.01 &&
      run.conflicts409 === 0 &&
      run.wronglyRefused === 0 &&
      run.created + run.exhausted409 === run.requests
    return {
      result: { ...run, asked },
      rows: [
        {
          metric: `model: pool 10,000,000, 256 clients, 10,000 grants of 1-2,000 shares (asked ${asked})`,
          value: `${run.created} created, ${run.exhausted409} refused (${run.remainingAtEnd} left), ${run.conflictAnswers} 409s answered (${round(conflictShare * 100)}%), ${run.conflicts409} after the client's retries (${run.unavailableAnswers} 503s answered; at most ${run.maxAttempts} attempts), ${run.wronglyRefused} wrong refusals; ${round(run.grantsPerSecond, 0)}/s, p50/p99 ${round(run.p50Ms, 0)}/${round(run.p99Ms, 0)} ms, ${round(run.callsPerGrant, 2)} calls/grant`,
          target: 'exact, <= 1% 409, 0 after retries, 0 wrong refusals',
          met,
        },
      ],
    }
  },
}
