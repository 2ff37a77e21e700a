import { parseList } from 'structured-headers'
import {
  burstOf,
  DEFAULT_RATE_LIMITS,
  emissionIntervalUs,
  gcraAvailable,
  gcraResetSeconds,
  gcraTake,
  gcraWaitUs,
  MAX_RATE_LIMIT,
  rateLimitField,
  rateLimitOf,
  rateLimitPolicyField,
  retryAfterSecondsOf,
} from '../../functions/domain/rate-limit'

const NOW = 1_800_000_000_000_000 // epoch µs

describe('rate limits: the defaults', () => {
  it('are Stripe-like per mode, replaced by the key own limit, burst twice', () => {
    expect(rateLimitOf({ mode: 'TEST' })).toBe(DEFAULT_RATE_LIMITS.TEST)
    expect(rateLimitOf({ mode: 'LIVE' })).toBe(100)
    expect(rateLimitOf({ mode: 'LIVE', rateLimit: 7 })).toBe(7)
    expect(burstOf(25)).toBe(50)
    expect(MAX_RATE_LIMIT).toBe(2_000)
  })
})

describe('GCRA: one theoretical arrival time per key', () => {
  const limit = 10 // T = 100 ms
  const burst = burstOf(limit)

  it('grants a whole burst to an unknown key, then nothing until time passes', () => {
    const first = gcraTake(undefined, NOW, 25, limit, burst)
    expect(first).toEqual({ granted: 20, tatUs: NOW + 20 * 100_000 })
    expect(gcraTake(first.tatUs, NOW, 1, limit, burst).granted).toBe(0)
    expect(gcraWaitUs(first.tatUs, NOW, limit, burst)).toBe(100_000)
    // 350 ms later: 3 tokens have come back.
    expect(gcraAvailable(first.tatUs, NOW + 350_000, limit, burst)).toBe(3)
    expect(gcraTake(first.tatUs, NOW + 350_000, 5, limit, burst)).toEqual({
      granted: 3,
      tatUs: first.tatUs + 300_000,
    })
  })

  it('admits at most rate x time + burst over any run of takes', () => {
    let tat: number | undefined
    let granted = 0
    for (let ms = 0; ms <= 10_000; ms += 7) {
      const taken = gcraTake(tat, NOW + ms * 1000, 3, limit, burst)
      tat = taken.tatUs
      granted += taken.granted
    }
    expect(granted).toBeLessThanOrEqual(limit * 10 + burst)
    expect(granted).toBeGreaterThanOrEqual(limit * 10 + burst - 1)
  })

  it('forgets a past tat: an idle key has its full burst', () => {
    expect(gcraAvailable(NOW - 60_000_000, NOW, limit, burst)).toBe(burst)
    expect(gcraResetSeconds(NOW - 1, NOW)).toBe(0)
    expect(gcraResetSeconds(NOW + 1_200_000, NOW)).toBe(2)
  })

  it('uses whole microseconds, so DynamoDB conditions compare exactly', () => {
    expect(emissionIntervalUs(3)).toBe(333_333)
    expect(emissionIntervalUs(MAX_RATE_LIMIT)).toBe(500)
    expect(retryAfterSecondsOf(0)).toBe(1)
    expect(retryAfterSecondsOf(1_000_001)).toBe(2)
  })
})

describe('the RateLimit fields (draft-ietf-httpapi-ratelimit-headers-11)', () => {
  it('are Structured Field Lists of one item, the policy, with its parameters', () => {
    const [policy] = parseList(rateLimitPolicyField(25))
    expect(policy?.[0]).toBe('key')
    expect(Object.fromEntries(policy?.[1] ?? [])).toEqual({ q: 25, w: 1 })
    const [limit] = parseList(rateLimitField(41.7, 0.2))
    expect(policy?.[0]).toBe(limit?.[0])
    expect(Object.fromEntries(limit?.[1] ?? [])).toEqual({ r: 41, t: 1 })
  })
})
