/**
 * One program and one key in the model of DynamoDB's conflicts and partition limits
 * (bench/contention): today's design (frozen in bench/contention/baseline) against counter
 * shards, in virtual time. Figures are the model's, never DynamoDB Local's wall clock.
 */
import { MODEL_DEFAULTS } from '../contention/dynamodb-model'
import { runHotProgram } from '../contention/hot-program'
import type { Benchmark } from '../support/benchmark'
import type { Row } from '../support/report'
import { round } from '../support/report'

type Run = Awaited<ReturnType<typeof runHotProgram>>

const LEVELS = [
  [1, 300],
  [16, 1_000],
  [64, 1_500],
  [256, 2_500],
] as const

export const benchmark: Benchmark = {
  title: 'one hot program in the contention model (virtual time; a few minutes)',
  resultPath: ['contentionModel'],
  run: async (bench) => {
    const { endpoint, tables } = await bench.dynamoDbLocal()
    const byLevel: Record<string, Run> = {}
    for (const design of ['baseline', 'sharded'] as const) {
      for (const [concurrency, requests] of LEVELS) {
        byLevel[`${design}-${concurrency}`] = await runHotProgram({
          design,
          concurrency,
          requests,
          endpoint,
          tables,
        })
      }
    }
    const slow = {
      ...MODEL_DEFAULTS,
      transaction: { medianMs: 16, p99Ms: 50 },
      single: { medianMs: 6, p99Ms: 18 },
    }
    const sensitivity = {
      baseline: await runHotProgram({
        design: 'baseline',
        concurrency: 256,
        requests: 1_500,
        endpoint,
        tables,
        params: slow,
      }),
      sharded: await runHotProgram({
        design: 'sharded',
        concurrency: 256,
        requests: 2_500,
        endpoint,
        tables,
        params: slow,
      }),
    }
    const poolRuns = {
      clean: await runHotProgram({
        design: 'sharded',
        concurrency: 256,
        requests: 20_000,
        pool: 10_000,
        endpoint,
        tables,
      }),
      faults: await runHotProgram({
        design: 'sharded',
        concurrency: 256,
        requests: 20_000,
        pool: 10_000,
        faultRate: 0.3,
        endpoint,
        tables,
      }),
    }
    const rows: Row[] = []
    for (const [concurrency] of LEVELS) {
      const b = byLevel[`baseline-${concurrency}`] as Run
      const n = byLevel[`sharded-${concurrency}`] as Run
      const describe = (r: Run) =>
        `${round(r.grantsPerSecond, 0)}/s, ${r.conflicts409} 409s of ${r.requests}, p50/p99 ${round(r.p50Ms, 0)}/${round(r.p99Ms, 0)} ms`
      rows.push({
        metric: `model: one program+key, concurrency ${concurrency}`,
        value: describe(n),
        baseline: describe(b),
        ratio: round(n.grantsPerSecond / b.grantsPerSecond),
        ...(concurrency === 256
          ? {
              target: '>=1000/s, <=1% 409, >=10x',
              met:
                n.grantsPerSecond >= 1_000 &&
                n.conflicts409 <= n.requests * 0.01 &&
                n.grantsPerSecond >= 10 * b.grantsPerSecond,
            }
          : {}),
      })
    }
    const warmModel = byLevel['sharded-1'] as Run
    rows.push({
      metric: 'model: DynamoDB calls per grant, one client',
      value: String(round(warmModel.callsPerGrant, 3)),
      baseline: String(round((byLevel['baseline-1'] as Run).callsPerGrant, 3)),
      target: '<= 1.05',
      met: warmModel.callsPerGrant <= 1.05,
    })
    rows.push({
      metric: 'model: transaction time x2, concurrency 256',
      value: `${round(sensitivity.sharded.grantsPerSecond, 0)}/s, ${sensitivity.sharded.conflicts409} 409s`,
      baseline: `${round(sensitivity.baseline.grantsPerSecond, 0)}/s, ${sensitivity.baseline.conflicts409} 409s`,
      ratio: round(sensitivity.sharded.grantsPerSecond / sensitivity.baseline.grantsPerSecond),
    })
    for (const [name, r] of Object.entries(poolRuns)) {
      const exact =
        r.issued === 10_000 && r.grantItems === 10_000 && (r.acknowledged ?? 0) <= 10_000
      rows.push({
        metric: `model: pool 10,000, 256 clients, 20,000 requests${name === 'faults' ? ', 30% faults' : ''}`,
        value: `issued ${r.issued}, grants ${r.grantItems}, acknowledged ${r.acknowledged}${r.faults === undefined ? '' : `, ${r.faults} faults`}`,
        target: 'issued == grants == 10000',
        met: exact,
      })
    }
    return {
      rows,
      result: { params: MODEL_DEFAULTS, levels: byLevel, sensitivity, pool: poolRuns },
    }
  },
}
