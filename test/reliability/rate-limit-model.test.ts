import { IoVirtualTime } from '../../bench/contention/io-virtual-time'
import {
  gcraLease,
  LEASE_MODEL_DEFAULTS,
  type LeaseAnswer,
  leaseTable,
} from '../../bench/contention/rate-lease-model'
import { HOT, QUIET, runRateLimitModel } from '../../bench/contention/rate-limit-model'
import { idealLimiter, perInstanceLimiter } from '../../bench/contention/reference-limiters'
import { seededRandom } from '../support/fault-injector'

/**
 * The rate-limit model (bench/contention/rate-limit-model.ts; `BENCH_ONLY=rate-limit-model npm run
 * bench` runs it for 30 virtual seconds): its lease item against the limits it models, its
 * window check against limiters whose answer is known, and the service's limiter held to issue
 * 33's targets in a shorter run. Virtual time: nothing here depends on the machine's speed.
 */
const fixed = (ms: number) => ({ medianMs: ms, p99Ms: ms })
const SHORT = { seconds: 12, hot: HOT, quiet: QUIET }

describe('the rate-limit model', () => {
  it('serialises the writes to one item, 1 ms each, and answers after the round trip', async () => {
    const time = new IoVirtualTime()
    const table = leaseTable({
      time,
      random: seededRandom(1),
      params: { ...LEASE_MODEL_DEFAULTS, roundTrip: fixed(4), partitionWcu: 1_000_000 },
    })
    const store = table.storeFor()
    const answered: number[] = []
    await time.run(
      Array.from({ length: 50 }, () => async () => {
        await store.lease({ keyId: 'k', tokens: 1, limit: 100, burst: 200, now: 0 })
        answered.push(time.now())
      }),
    )
    // All sent at 0, at the item at 2 ms, applied one after another: the last left it at 52 ms.
    expect(table.writes.map((w) => w.at)).toEqual(Array.from({ length: 50 }, (_, n) => 2 + n))
    expect(Math.max(...answered)).toBeCloseTo(54, 6)
    expect(Math.min(...answered)).toBeCloseTo(5, 6)
  })

  it("takes at most the partition's 1,000 writes a second and throttles the rest", async () => {
    const time = new IoVirtualTime()
    const table = leaseTable({
      time,
      random: seededRandom(2),
      params: { ...LEASE_MODEL_DEFAULTS, roundTrip: fixed(2), itemWriteMs: 0 },
    })
    const store = table.storeFor()
    const answers: LeaseAnswer[] = []
    // 4,000 writes to one item spread over 2 s: twice what its partition takes.
    await time.run(
      Array.from({ length: 4_000 }, (_, n) => async () => {
        await time.until(n / 2)
        answers.push(
          await store.lease({ keyId: 'k', tokens: 1, limit: 10_000, burst: 20_000, now: n / 2 }),
        )
      }),
    )
    // 100 banked (0.1 s), then 1,000 a second for 2 s; the rest refused, nothing written.
    expect(table.writes.length).toBeGreaterThanOrEqual(2_000)
    expect(table.writes.length).toBeLessThanOrEqual(2_101)
    expect(table.throttles()).toBe(4_000 - table.writes.length)
    expect(answers.filter((a) => a === 'unavailable')).toHaveLength(table.throttles())
  })

  it('grants a GCRA bucket: the burst at once, then the limit a second, never past the tolerance', () => {
    const request = { keyId: 'k', limit: 100, burst: 200, now: 1_000_000 }
    const first = gcraLease(undefined, { ...request, tokens: 150 })
    expect(first.answer).toEqual({ granted: 150, tat: 1_000_000 + 1_500 })
    const second = gcraLease(first.tat, { ...request, tokens: 100 })
    expect(second.answer).toEqual({ granted: 50, tat: 1_000_000 + 2_000 })
    const none = gcraLease(second.tat, { ...request, tokens: 10 })
    expect(none.answer).toMatchObject({ granted: 0 })
    // A second later: 100 more.
    const later = gcraLease(none.tat, { ...request, tokens: 500, now: request.now + 1_000 })
    expect(later.answer).toMatchObject({ granted: 100 })
  })

  it('finds an ideal limiter on the limit in every window, and a limit per instance far over it', async () => {
    const ideal = await runRateLimitModel({ ...SHORT, limiter: idealLimiter() })
    const hot = ideal.hot as NonNullable<typeof ideal.hot>
    // 400 a second asked; one bucket passes 100 a second (+1 at a window's edge), 200 more at the start.
    expect(hot.requests).toBeGreaterThan(4_400)
    expect(hot.worstWindow.admitted).toBeLessThanOrEqual(501)
    expect(hot.lowestWindow.admitted).toBeGreaterThanOrEqual(499)
    expect(hot.startWindow).toBeLessThanOrEqual(701)
    expect(ideal.quiet?.refused).toBe(0)
    const loose = await runRateLimitModel({ ...SHORT, limiter: perInstanceLimiter() })
    // 16 buckets of 100 a second each pass everything 400 a second ask.
    expect(loose.hot?.refused).toBe(0)
    expect(loose.hot?.worstWindow.admitted).toBeGreaterThan(1_800)
  })

  it("leaves the quiet key's requests alike with the hot key beside it and alone", async () => {
    const beside = await runRateLimitModel({ ...SHORT, limiter: idealLimiter() })
    const alone = await runRateLimitModel({ ...SHORT, hot: undefined, limiter: idealLimiter() })
    expect(beside.quiet?.requests).toBe(alone.quiet?.requests)
    expect(beside.quiet?.latencyMs.p99).toBeCloseTo(alone.quiet?.latencyMs.p99 ?? 0, 0)
  })
})
