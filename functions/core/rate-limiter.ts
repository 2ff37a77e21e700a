import type { Mode } from '../domain/api-key'
import {
  burstOf,
  emissionIntervalUs,
  gcraAvailable,
  gcraResetSeconds,
  gcraTake,
  gcraWaitUs,
  msToUs,
  rateLimitOf,
  retryAfterSecondsOf,
} from '../domain/rate-limit'
import type { RateLeaseStore } from '../stores/rate-leases.store'

/** A request's verdict, and what the answer's RateLimit fields say (this instance's view). */
export type RateDecision = {
  allowed: boolean
  limit: number
  remaining: number
  resetSeconds: number
  retryAfterSeconds?: number
}

export type RateLimitedKey = { keyId: string; mode: Mode; rateLimit?: number }

/** Every limiter's leases in flight in this process: for tests and the bench, which count them. */
const inFlight = new Set<Promise<void>>()

/** Resolves once no limiter of this process has a lease in flight. */
export const allLeasesSettled = async (): Promise<void> => {
  while (inFlight.size > 0) await Promise.allSettled([...inFlight])
}

/** Leased tokens are spent within this long of the lease's sending, or dropped (no hoarding). */
export const LEASE_LIFETIME_MS = 500
/** A lease covers this much of the instance's recent demand: a few leases a second when busy. */
export const LEASE_SPAN_MS = 250
/** The demand estimate forgets with this time constant. */
const DEMAND_TAU_MS = 1_000
/** With DynamoDB away, the instance limits alone (fail open per instance) this long, then asks again. */
export const UNAVAILABLE_MS = 1_000
const MAX_KEYS = 10_000

type Bucket = {
  limit: number
  /** Leased, unspent tokens, and when they lapse. */
  tokens: number
  expiresAt: number
  /** Requests admitted on credit (an empty bucket, no refusal known): the next lease repays them. */
  debt: number
  /** A lease was refused short of the debt: no more credit until it is repaid. */
  owing: boolean
  /** A lease in flight, and what it asked. */
  inflight: number
  /** The shared bucket's tat (epoch µs) as the last lease saw it. */
  tatUs: number | undefined
  /** Until when (epoch ms) the shared bucket has said no. */
  refusedUntil: number
  /** Decayed count of recent takes (≈ takes a second), and when it was last moved. */
  demand: number
  seenAt: number
  /** DynamoDB away: a local bucket (tat, epoch µs) until `localUntil`. */
  localUntil: number
  localTatUs: number | undefined
}

/**
 * Per-key rate limits across instances (docs/decisions/rate-limits.md). `take` is synchronous: it
 * spends from this instance's bucket of leased tokens and never waits for DynamoDB; leases are
 * fetched in the background when the bucket runs low, sized by the instance's recent demand.
 * `settled()` resolves when no lease is in flight (tests, the contention model).
 */
export class RateLimiter {
  private readonly leases: RateLeaseStore
  private readonly now: () => number
  private readonly random: () => number
  private readonly buckets = new Map<string, Bucket>()
  private readonly pending = new Set<Promise<void>>()

  constructor({
    leases,
    now = Date.now,
    random = Math.random,
  }: {
    leases: RateLeaseStore
    now?: () => number
    random?: () => number
  }) {
    this.leases = leases
    this.now = now
    this.random = random
  }

  take(key: RateLimitedKey): RateDecision {
    const now = this.now()
    const limit = rateLimitOf(key)
    const bucket = this.bucketOf(key.keyId, limit, now)
    this.observe(bucket, now)
    if (now < bucket.localUntil) return this.takeLocally(bucket, now)
    if (now >= bucket.expiresAt) bucket.tokens = 0

    this.prefetch(key.keyId, bucket, now)
    let allowed: boolean
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      allowed = true
    } else if (now < bucket.refusedUntil) {
      allowed = false
    } else if (bucket.debt < this.creditCap(bucket) && this.creditable(bucket, now)) {
      // Nothing leased and no refusal known: admit now, on credit of the lease in flight. A key
      // under its limit never waits for DynamoDB, even with many requests at once (npm start).
      bucket.debt += 1
      allowed = true
    } else {
      allowed = false
    }
    return this.decision(bucket, now, allowed)
  }

  /** Resolves once no lease is in flight (those started meanwhile included). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending])
  }

  private bucketOf(keyId: string, limit: number, now: number): Bucket {
    let bucket = this.buckets.get(keyId)
    if (bucket === undefined || bucket.limit !== limit) {
      // A new limit starts afresh: what was leased under the old one is dropped.
      bucket = {
        limit,
        tokens: 0,
        expiresAt: 0,
        debt: 0,
        owing: false,
        inflight: 0,
        tatUs: undefined,
        refusedUntil: 0,
        demand: 0,
        seenAt: now,
        localUntil: 0,
        localTatUs: undefined,
      }
      this.buckets.delete(keyId)
      if (this.buckets.size >= MAX_KEYS) {
        const oldest = this.buckets.keys().next().value
        if (oldest !== undefined) this.buckets.delete(oldest)
      }
      this.buckets.set(keyId, bucket)
    }
    return bucket
  }

  private observe(bucket: Bucket, now: number) {
    const elapsed = Math.max(0, now - bucket.seenAt)
    bucket.demand = bucket.demand * Math.exp(-elapsed / DEMAND_TAU_MS) + 1
    bucket.seenAt = now
  }

  /** Tokens for the next LEASE_SPAN_MS at the recent demand, within the burst. */
  private prefetchSize(bucket: Bucket): number {
    const perSecond = (bucket.demand * 1000) / DEMAND_TAU_MS
    return Math.min(
      burstOf(bucket.limit),
      Math.max(1, Math.ceil((perSecond * LEASE_SPAN_MS) / 1000)),
    )
  }

  /** Owing after a refusal: no credit until a lease has repaid the debt. */
  private creditable(bucket: Bucket, _now: number): boolean {
    return !bucket.owing
  }

  /** Credit while a lease is in flight: what it asked, and a quarter second of the limit more. */
  private creditCap(bucket: Bucket): number {
    if (bucket.inflight === 0) return 0
    return bucket.inflight + Math.ceil((bucket.limit * LEASE_SPAN_MS) / 1000)
  }

  private prefetch(keyId: string, bucket: Bucket, now: number) {
    if (bucket.inflight > 0 || now < bucket.refusedUntil) return
    const size = this.prefetchSize(bucket)
    const low = bucket.debt > 0 || bucket.tokens <= Math.floor(size / 2)
    if (!low) return
    const asked = Math.min(burstOf(bucket.limit), bucket.debt + size)
    bucket.inflight = asked
    const run = this.lease(keyId, bucket, asked, now)
    this.pending.add(run)
    inFlight.add(run)
    void run.finally(() => {
      this.pending.delete(run)
      inFlight.delete(run)
    })
  }

  private async lease(keyId: string, bucket: Bucket, asked: number, sentAt: number) {
    const limit = bucket.limit
    const burst = burstOf(limit)
    let lease: Awaited<ReturnType<RateLeaseStore['lease']>>
    try {
      lease = await this.leases.lease({ keyId, tokens: asked, limit, burst, now: sentAt })
    } catch {
      lease = 'unavailable'
    }
    bucket.inflight = 0
    if (this.buckets.get(keyId) !== bucket) return
    const now = this.now()
    if (lease === 'unavailable') {
      // Fail open per instance: this instance admits up to the key's whole limit alone for a
      // while; what it admitted on credit is forgiven. Jittered so instances do not ask at once.
      bucket.localUntil = now + UNAVAILABLE_MS * (1 + this.random() / 2)
      bucket.localTatUs = undefined
      bucket.debt = 0
      bucket.owing = false
      return
    }
    bucket.tatUs = msToUs(lease.tat)
    const net = lease.granted - bucket.debt
    bucket.debt = Math.max(0, -net)
    // Refused short while in debt: no more credit until it is repaid. Granted in full, the debt
    // is only what outran the lease: the next one (started at once) asks for it.
    bucket.owing = bucket.debt > 0 && lease.granted < asked
    if (net > 0) {
      // Counted from the sending: a lease that returns late (a frozen instance) lapses sooner.
      bucket.tokens = (now < bucket.expiresAt ? bucket.tokens : 0) + net
      bucket.expiresAt = sentAt + LEASE_LIFETIME_MS
    }
    if (lease.granted < asked) {
      const waitMs = gcraWaitUs(bucket.tatUs, msToUs(now), limit, burst) / 1000
      bucket.refusedUntil = now + waitMs
      // Repay the debt as soon as a token is back, so a client that waits its Retry-After finds
      // the instance square (where timers run between requests: npm start, not a frozen Lambda,
      // whose next request starts the repayment instead).
      if (bucket.debt > 0) {
        const timer = setTimeout(() => {
          if (this.buckets.get(keyId) === bucket) this.prefetch(keyId, bucket, this.now())
        }, waitMs + 1)
        timer.unref?.()
      }
    } else if (bucket.debt > 0) {
      // Requests outran the lease: lease what they owe now, not at the next request.
      this.prefetch(keyId, bucket, now)
    }
  }

  private takeLocally(bucket: Bucket, now: number): RateDecision {
    const burst = burstOf(bucket.limit)
    const nowUs = msToUs(now)
    const taken = gcraTake(bucket.localTatUs, nowUs, 1, bucket.limit, burst)
    bucket.localTatUs = taken.tatUs
    const allowed = taken.granted === 1
    return {
      allowed,
      limit: bucket.limit,
      remaining: gcraAvailable(taken.tatUs, nowUs, bucket.limit, burst),
      resetSeconds: gcraResetSeconds(taken.tatUs, nowUs),
      ...(allowed
        ? {}
        : {
            retryAfterSeconds: retryAfterSecondsOf(
              gcraWaitUs(taken.tatUs, nowUs, bucket.limit, burst),
            ),
          }),
    }
  }

  /** What this instance knows: its own tokens, plus the shared bucket as last seen, less its debt. */
  private decision(bucket: Bucket, now: number, allowed: boolean): RateDecision {
    const burst = burstOf(bucket.limit)
    const nowUs = msToUs(now)
    // The shared tat with this instance's debt on it: what the key has left when it is repaid.
    const owedTat =
      bucket.tatUs === undefined && bucket.debt === 0
        ? undefined
        : Math.max(bucket.tatUs ?? nowUs, nowUs) + bucket.debt * emissionIntervalUs(bucket.limit)
    const shared = gcraAvailable(owedTat, nowUs, bucket.limit, burst)
    const remaining = allowed ? Math.min(burst, Math.floor(bucket.tokens) + shared) : 0
    const resetSeconds = gcraResetSeconds(owedTat, nowUs)
    if (allowed) return { allowed, limit: bucket.limit, remaining, resetSeconds }
    const waitMs = Math.max(bucket.refusedUntil - now, 0)
    const retryAfterSeconds = retryAfterSecondsOf(waitMs * 1000)
    return {
      allowed,
      limit: bucket.limit,
      remaining,
      resetSeconds: Math.max(resetSeconds, retryAfterSeconds),
      retryAfterSeconds,
    }
  }
}
