import { LEASE_LIFETIME_MS, RateLimiter, UNAVAILABLE_MS } from '../../functions/core/rate-limiter'
import { gcraTake, msToUs } from '../../functions/domain/rate-limit'
import type { RateLeaseRequest, RateLeaseStore } from '../../functions/stores/rate-leases.store'

/**
 * The limiter (functions/core/rate-limiter.ts) over an in-memory GCRA bucket with the store's
 * contract and a clock the test moves: take() decides at once, leases run in the background and
 * settle when the test says so (DynamoDB's answer is late by construction, never by a sleep).
 */
const T0 = 1_800_000_000_000

class MemoryLeases implements RateLeaseStore {
  tat = new Map<string, number>()
  calls: RateLeaseRequest[] = []
  away = false
  async lease(request: RateLeaseRequest) {
    this.calls.push(request)
    if (this.away) return 'unavailable' as const
    const taken = gcraTake(
      this.tat.get(request.keyId),
      msToUs(request.now),
      request.tokens,
      request.limit,
      request.burst,
    )
    this.tat.set(request.keyId, taken.tatUs)
    return { granted: taken.granted, tat: taken.tatUs / 1000 }
  }
}

const setup = (count = 1) => {
  const clock = { now: T0 }
  const leases = new MemoryLeases()
  const limiters = Array.from(
    { length: count },
    () => new RateLimiter({ leases, now: () => clock.now, random: () => 0 }),
  )
  return { clock, leases, limiters, limiter: limiters[0] as RateLimiter }
}

const key = { keyId: 'key_a', mode: 'TEST' as const, rateLimit: 10 }

describe('RateLimiter', () => {
  it('admits the first request at once, on credit of the lease it starts', async () => {
    const { limiter, leases } = setup()
    const first = limiter.take(key)
    expect(first).toMatchObject({ allowed: true, limit: 10 })
    expect(leases.calls).toHaveLength(1)
    await limiter.settled()
    expect(leases.tat.get('key_a')).toBe(msToUs(T0) + 100_000)
  })

  it('refuses past the burst with Retry-After, then admits again when the bucket refills', async () => {
    const { limiter, clock } = setup()
    let admitted = 0
    let refused: ReturnType<RateLimiter['take']> | undefined
    // One instance, requests one after another with its leases answered in between.
    for (let i = 0; i < 40; i++) {
      const decision = limiter.take(key)
      if (decision.allowed) admitted++
      else refused ??= decision
      await limiter.settled()
    }
    expect(admitted).toBe(20) // the burst: twice the limit
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 })
    clock.now += 1_000
    let later = 0
    for (let i = 0; i < 20; i++) {
      if (limiter.take(key).allowed) later++
      await limiter.settled()
    }
    expect(later).toBe(10) // a second's worth
  })

  it.each([
    [10, 2],
    [100, 4],
  ])(
    'keeps 16 instances offered %i a second x %i within rate x time + burst',
    async (limit, load) => {
      const { limiters, clock } = setup(16)
      const limited = { keyId: `key_${limit}`, mode: 'LIVE' as const, rateLimit: limit }
      const every = Math.round((16 * 1000) / (limit * load)) // ms between one instance's requests
      let admitted = 0
      // Each instance's requests in turn, staggered; a lease answers 1 ms later.
      for (let ms = 0; ms < 10_000; ms += 1) {
        clock.now = T0 + ms
        for (const [i, limiter] of limiters.entries()) {
          if ((ms + i * 7) % every === 0 && limiter.take(limited).allowed) admitted++
        }
        await Promise.all(limiters.map((l) => l.settled()))
      }
      expect(admitted).toBeLessThanOrEqual(limit * 10 + 2 * limit + 16)
      expect(admitted).toBeGreaterThanOrEqual(limit * 10 * 0.9)
    },
  )

  it('never refuses a key under its limit, across 16 instances', async () => {
    const { limiters, clock } = setup(16)
    const limited = { keyId: 'key_under', mode: 'LIVE' as const, rateLimit: 100 }
    let refused = 0
    let offered = 0
    // 80 a second in all, spread over the instances.
    for (let ms = 0; ms < 5_000; ms += 1) {
      clock.now = T0 + ms
      for (const [i, limiter] of limiters.entries()) {
        if ((ms + i * 13) % 200 === 0) {
          offered++
          if (!limiter.take(limited).allowed) refused++
        }
      }
      await Promise.all(limiters.map((l) => l.settled()))
    }
    expect(offered).toBeGreaterThan(350)
    expect(refused).toBe(0)
  })

  it('admits many requests at once on a cold instance (npm start), then repays them', async () => {
    const { limiter, leases } = setup()
    const live = { keyId: 'key_many', mode: 'LIVE' as const }
    const wave = Array.from({ length: 20 }, () => limiter.take(live))
    expect(wave.every((d) => d.allowed)).toBe(true)
    await limiter.settled()
    expect(Array.from({ length: 20 }, () => limiter.take(live)).every((d) => d.allowed)).toBe(true)
    await limiter.settled()
    // What was admitted on credit was leased from the shared bucket afterwards.
    const leased = leases.calls.reduce((sum, call) => sum + call.tokens, 0)
    expect(leased).toBeGreaterThanOrEqual(40)
  })

  it('drops leased tokens it did not spend in time (an idle instance hoards nothing)', async () => {
    const { limiter, clock, leases } = setup()
    for (let i = 0; i < 30; i++) {
      limiter.take(key)
      clock.now += 30
      await limiter.settled()
    }
    const leased = leases.calls.length
    clock.now += LEASE_LIFETIME_MS
    const after = limiter.take(key)
    expect(after.allowed).toBe(true)
    // The lapsed tokens are not spent: this take asked for a new lease.
    expect(leases.calls.length).toBe(leased + 1)
  })

  it('fails open per instance while DynamoDB is away, within the key limit', async () => {
    const { limiter, leases, clock } = setup()
    leases.away = true
    limiter.take(key)
    await limiter.settled()
    let admitted = 0
    for (let i = 0; i < 50; i++) if (limiter.take(key).allowed) admitted++
    expect(admitted).toBe(20) // the burst, locally
    const calls = leases.calls.length
    clock.now += UNAVAILABLE_MS * 2
    leases.away = false
    expect(limiter.take(key).allowed).toBe(true)
    expect(leases.calls.length).toBe(calls + 1) // asks the shared bucket again
  })

  it('reports what this instance sees: remaining and the seconds until the burst is whole', async () => {
    const { limiter } = setup()
    limiter.take(key)
    await limiter.settled()
    const decision = limiter.take(key)
    expect(decision.allowed).toBe(true)
    expect(decision.remaining).toBeGreaterThan(0)
    expect(decision.remaining).toBeLessThanOrEqual(20)
    expect(decision.resetSeconds).toBe(1)
  })

  it('starts afresh when the key limit changes', async () => {
    const { limiter } = setup()
    limiter.take(key)
    await limiter.settled()
    expect(limiter.take({ ...key, rateLimit: 3 })).toMatchObject({ allowed: true, limit: 3 })
    expect(limiter.take({ keyId: 'key_b', mode: 'LIVE' })).toMatchObject({ limit: 100 })
  })
})
