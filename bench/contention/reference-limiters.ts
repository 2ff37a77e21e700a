import { burstOf, gcraTake, msToUs, rateLimitOf } from '../../functions/domain/rate-limit'
import type { Limiter, LimiterFactory } from './rate-limit-model'

/**
 * Two limiters to hold the rate-limit model (./rate-limit-model.ts) against, neither the service's:
 * - `idealLimiter`: every instance takes from one GCRA bucket per key (domain/rate-limit.ts's),
 *   at once and with no round trip, which no set of Lambda instances can do: the bench's baseline,
 *   exactly what the limit allows.
 * - `perInstanceLimiter`: each instance its own bucket of the whole limit, shared with nobody: what
 *   a limit that does not hold across instances passes (the model's check must catch it).
 */
const bucketLimiter = (tats: Map<string, number>, now: () => number): Limiter => ({
  take(key) {
    const limit = rateLimitOf(key)
    const taken = gcraTake(tats.get(key.keyId), msToUs(now()), 1, limit, burstOf(limit))
    tats.set(key.keyId, taken.tatUs)
    const allowed = taken.granted === 1
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
  const shared = new Map<string, number>()
  return ({ now }) => bucketLimiter(shared, now)
}

export const perInstanceLimiter =
  (): LimiterFactory =>
  ({ now }) =>
    bucketLimiter(new Map(), now)
