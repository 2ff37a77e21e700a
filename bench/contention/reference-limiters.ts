import { gcraLease } from './rate-lease-model'
import type { Limiter, LimiterFactory, RateKey } from './rate-limit-model'

/**
 * Two limiters to hold the rate-limit model (./rate-limit-model.ts) against, neither the service's:
 * - `idealLimiter`: every instance takes from one GCRA bucket per key, at once and with no round
 *   trip (what no set of Lambda instances can do): the bench's baseline, the most a limit allows.
 * - `perInstanceLimiter`: each instance its own bucket of the whole limit, shared with nobody: what
 *   a limit that does not hold across instances passes (the model's check must catch it).
 */
const bucketLimiter = (tats: Map<string, number | undefined>, now: () => number): Limiter => ({
  take(key: RateKey) {
    const limit = key.rateLimit ?? (key.mode === 'LIVE' ? 100 : 25)
    const { answer, tat } = gcraLease(tats.get(key.keyId), {
      keyId: key.keyId,
      tokens: 1,
      limit,
      burst: 2 * limit,
      now: now(),
    })
    tats.set(key.keyId, tat)
    const allowed = answer !== 'unavailable' && answer.granted === 1
    return {
      allowed,
      limit,
      remaining: 0,
      resetSeconds: 1,
      ...(allowed ? {} : { retryAfterSeconds: 1 }),
    }
  },
  settled: async () => {},
})

export const idealLimiter = (): LimiterFactory => {
  const shared = new Map<string, number | undefined>()
  return ({ now }) => bucketLimiter(shared, now)
}

export const perInstanceLimiter =
  (): LimiterFactory =>
  ({ now }) =>
    bucketLimiter(new Map(), now)
