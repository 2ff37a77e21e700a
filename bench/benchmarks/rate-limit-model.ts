/**
 * Per-key rate limits across Lambda instances in the contention model (issue 33;
 * bench/contention/rate-limit-model.ts): 8 clients on one key at 4x its limit of 100 a second,
 * spread at random over 16 instances, each with its own RateLimiter leasing from one modelled
 * item, and a second key at half its limit beside it; 30 virtual seconds. Baseline: an ideal
 * limiter (one bucket shared by every instance at no cost), the same load. Virtual time: the
 * figures are the model's and repeat exactly (seeded), whatever the machine.
 */
import { RateLimiter } from '../../functions/core/rate-limiter'
import { LEASE_MODEL_DEFAULTS } from '../contention/rate-lease-model'
import {
  HOT,
  HOT_TEST,
  judgeAccuracy,
  type KeyFigures,
  type LimiterFactory,
  QUIET,
  type RateLimitRun,
  runRateLimitModel,
} from '../contention/rate-limit-model'
import { idealLimiter } from '../contention/reference-limiters'
import type { Benchmark } from '../support/benchmark'
import { type Row, round } from '../support/report'

const SECONDS = 30
const PARTITION_WRITES = 1_000
const service: LimiterFactory = (deps) => new RateLimiter(deps)

const pct = (n: number, of: number) => `${round((100 * n) / of, 1)}%`
const describeHot = (k: KeyFigures) =>
  `worst 5-s window ${k.worstWindow.admitted} admitted (${pct(k.worstWindow.admitted, k.limit * 5)} of the limit, at ${k.worstWindow.startMs / 1_000} s), lowest ${k.lowestWindow.admitted} (${pct(k.lowestWindow.admitted, k.limit * 5)}); first window [0, 5 s) ${k.startWindow}; ${k.admitted.toLocaleString('en')} admitted, ${k.refused.toLocaleString('en')} 429s of ${k.requests.toLocaleString('en')}`
const describeLeases = (k: KeyFigures, run: RateLimitRun) =>
  `${k.leaseWrites.toLocaleString('en')} writes, ${round(k.leaseWritesPerSecond, 1)}/s, peak ${k.leaseWritesPeakPerSecond} in one second, ${k.refusedWrites.toLocaleString('en')} of them refused by their condition; ${k.leases.toLocaleString('en')} leases, ${k.emptyLeases.toLocaleString('en')} granted nothing; ${run.throttles} throttled, ${k.unavailable} unavailable; ${k.granted.toLocaleString('en')} tokens granted for ${k.admitted.toLocaleString('en')} admitted`
const describeQuiet = (k: KeyFigures) =>
  `${k.admitted.toLocaleString('en')} of ${k.requests.toLocaleString('en')} admitted, ${k.refused} 429s; admitted p50/p99 ${round(k.latencyMs.p50, 1)}/${round(k.latencyMs.p99, 1)} ms`

export const benchmark: Benchmark = {
  title: 'per-key rate limits across 16 instances in the contention model (virtual time; seconds)',
  resultPath: ['rateLimitModel'],
  run: async () => {
    const load = { seconds: SECONDS, hot: HOT, quiet: QUIET }
    const runs = {
      service: await runRateLimitModel({ ...load, limiter: service }),
      ideal: await runRateLimitModel({ ...load, limiter: idealLimiter() }),
      quietAlone: await runRateLimitModel({ ...load, hot: undefined, limiter: service }),
      slowLeases: await runRateLimitModel({
        ...load,
        limiter: service,
        lease: {
          ...LEASE_MODEL_DEFAULTS,
          roundTrip: {
            medianMs: 2 * LEASE_MODEL_DEFAULTS.roundTrip.medianMs,
            p99Ms: 2 * LEASE_MODEL_DEFAULTS.roundTrip.p99Ms,
          },
        },
      }),
      neverFrozen: await runRateLimitModel({ ...load, limiter: service, freeze: false }),
      testKey: await runRateLimitModel({ seconds: SECONDS, hot: HOT_TEST, limiter: service }),
      testKeyIdeal: await runRateLimitModel({
        seconds: SECONDS,
        hot: HOT_TEST,
        limiter: idealLimiter(),
      }),
    }
    const rows: Row[] = []
    const hot = runs.service.hot as KeyFigures
    const ideal = runs.ideal.hot as KeyFigures
    const judged = judgeAccuracy(hot, runs.service.windowMs)
    const rule = `every 5-s window from 1 s: ${judged.floor}..${judged.ceiling} (90..110% of ${judged.perWindow}); [0, 5 s) <= ${judged.startCeiling} (+ the burst)`
    rows.push({
      metric: `model: rate limits, one key at 4x its limit (8 clients, 400/s for a limit of 100/s, burst 200) over 16 instances, ${SECONDS} s (\`rate-limit-model\`)`,
      value: describeHot(hot),
      baseline: `${describeHot(ideal)} (one shared bucket, no round trip)`,
      ratio: round(hot.worstWindow.admitted / ideal.worstWindow.admitted),
      target: rule,
      met: judged.met,
    })
    for (const [name, run] of [
      ['the lease round trip twice as slow', runs.slowLeases],
      ['instances never frozen between requests', runs.neverFrozen],
    ] as const) {
      const k = run.hot as KeyFigures
      rows.push({
        metric: `model: rate limits, the same with ${name}`,
        value: describeHot(k),
        target: rule,
        met: judgeAccuracy(k, run.windowMs).met,
      })
    }
    const testKey = runs.testKey.hot as KeyFigures
    const testJudged = judgeAccuracy(testKey, runs.testKey.windowMs)
    rows.push({
      metric:
        'model: rate limits, a TEST key at 4x its limit (8 clients, 100/s for 25/s, burst 50)',
      value: describeHot(testKey),
      baseline: describeHot(runs.testKeyIdeal.hot as KeyFigures),
      ratio: round(
        testKey.worstWindow.admitted / (runs.testKeyIdeal.hot as KeyFigures).worstWindow.admitted,
      ),
      target: `${testJudged.floor}..${testJudged.ceiling} a 5-s window from 1 s; [0, 5 s) <= ${testJudged.startCeiling}`,
      met: testJudged.met,
    })
    rows.push({
      metric: "model: rate limits, lease writes to the hot key's item",
      value: describeLeases(hot, runs.service),
      target: `peak <= ${PARTITION_WRITES}/s (the partition's), none throttled`,
      met: hot.leaseWritesPeakPerSecond <= PARTITION_WRITES && runs.service.throttles === 0,
    })
    const quiet = runs.service.quiet as KeyFigures
    const alone = runs.quietAlone.quiet as KeyFigures
    rows.push({
      metric:
        'model: rate limits, a second key at half its limit (50/s of 100/s) beside the hot one',
      value: describeQuiet(quiet),
      baseline: `${describeQuiet(alone)} (alone)`,
      ratio: round(quiet.latencyMs.p99 / alone.latencyMs.p99),
      target: 'none refused, admitted p99 <= 1.1x alone',
      met: quiet.refused === 0 && quiet.latencyMs.p99 <= 1.1 * alone.latencyMs.p99,
    })
    rows.push({
      metric: 'model: rate limits, that key alone (50/s of 100/s over 16 instances)',
      value: describeQuiet(alone),
      target: 'none refused',
      met: alone.refused === 0,
    })
    // Each second's count on one line, not thirty.
    const compact = (k: KeyFigures | undefined) => k && { ...k, perSecond: k.perSecond.join(' ') }
    const result = Object.fromEntries(
      Object.entries(runs).map(([name, r]) => [
        name,
        { ...r, hot: compact(r.hot), quiet: compact(r.quiet) },
      ]),
    )
    return { rows, result: { lease: LEASE_MODEL_DEFAULTS, ...result } }
  },
}
