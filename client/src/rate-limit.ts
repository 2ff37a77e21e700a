import { type Item, type Parameters, parseList, Token } from 'structured-headers'

/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers-11): Structured Field Lists
 * (RFC 9651) of Items, a policy's name with parameters, e.g.
 * `RateLimit-Policy: "key";q=100;w=1` and `RateLimit: "key";r=42;t=1`.
 */
export type QuotaPolicy = {
  name: string
  /** `q`: the quota, in requests. */
  quota: number
  /** `w`: the window the quota is for, in seconds; absent when the server gives none. */
  windowSeconds?: number
}
export type ServiceLimit = {
  name: string
  /** `r`: the quota still available. */
  remaining: number
  /** `t`: the seconds within which no more than `remaining` may be used. */
  resetSeconds?: number
}
/** What the client last learned of its key's limits (`GrantClient.rateLimit`). */
export type RateLimitState = {
  policies: QuotaPolicy[]
  /** The tightest `RateLimit` item of the last answer that carried a valid one. */
  limit?: ServiceLimit
  /** Epoch ms (the client's clock) before which the client sends nothing, if in the future. */
  pausedUntil?: number
}

/** The Items of a List field; a field that does not parse is ignored whole, as the draft says. */
const items = (field: string | null): Item[] => {
  if (field === null) return []
  try {
    // Inner Lists (an array where the Item's value goes) mean nothing in these fields.
    return parseList(field).filter((member): member is Item => !Array.isArray(member[0]))
  } catch {
    return []
  }
}
const nameOf = (value: Item[0]): string | undefined =>
  typeof value === 'string' ? value : value instanceof Token ? value.toString() : undefined
/** A non-negative Integer; anything else (a Decimal, a Boolean, a String) is malformed. */
const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined

/** An optional Integer parameter: undefined when absent, null when malformed. */
const optional = (parameters: Parameters, key: string): number | null | undefined =>
  parameters.has(key) ? (count(parameters.get(key)) ?? null) : undefined

/** Each Item named by a String (or Token) that `read` accepts; the others are dropped. */
const eachItem = <T>(
  field: string | null,
  read: (name: string, parameters: Parameters) => T | undefined,
): T[] =>
  items(field).flatMap(([value, parameters]) => {
    const name = nameOf(value)
    const item = name === undefined ? undefined : read(name, parameters)
    return item === undefined ? [] : [item]
  })

/** `RateLimit-Policy`'s items; a malformed item (no `q`, a `w` of 0 or not an Integer) is dropped. */
export const parseRateLimitPolicy = (field: string | null): QuotaPolicy[] =>
  eachItem(field, (name, parameters) => {
    const quota = count(parameters.get('q'))
    const window = optional(parameters, 'w')
    if (quota === undefined || window === null || window === 0) return undefined
    return { name, quota, ...(window === undefined ? {} : { windowSeconds: window }) }
  })

/** `RateLimit`'s items; a malformed item (no `r`, a `t` not an Integer) is dropped. */
export const parseRateLimit = (field: string | null): ServiceLimit[] =>
  eachItem(field, (name, parameters) => {
    const remaining = count(parameters.get('r'))
    const reset = optional(parameters, 't')
    if (remaining === undefined || reset === null) return undefined
    return { name, remaining, ...(reset === undefined ? {} : { resetSeconds: reset }) }
  })

/** Send instants remembered: a policy's quota above this is paced as if it were this. */
const MAX_REMEMBERED = 10_000

/**
 * One client's pacing, on an injected clock: never more than a policy's `q` requests in any `w`
 * seconds (sliding), nothing while the server said none remain (`r=0` for `t` seconds) or asked
 * to wait (a 429's `Retry-After`). Each send reserves its instant in order, so concurrent callers
 * queue behind each other, and a wait is computed once (a test's instant sleep cannot spin it).
 */
export class RateGate {
  private policies: QuotaPolicy[] = []
  private limit: ServiceLimit | undefined
  /** Reserved send instants (epoch ms), oldest first, never decreasing. */
  private sends: number[] = []
  private pausedUntil = 0

  /** `maxPauseMs`: the longest pause one answer can impose (a huge Retry-After is capped). */
  constructor(private readonly maxPauseMs: number) {}

  /**
   * Learns from an answer's fields; malformed or absent ones leave what was known. A 429's
   * `Retry-After` (given as `retryAfterMs`) takes precedence over its `t`, as the draft says.
   */
  observe(headers: Headers, now: number, retryAfterMs?: number): void {
    const policies = parseRateLimitPolicy(headers.get('ratelimit-policy'))
    if (policies.length > 0) this.policies = policies
    const limits = parseRateLimit(headers.get('ratelimit'))
    if (limits.length > 0) {
      this.limit = limits.reduce((tightest, item) =>
        item.remaining < tightest.remaining ? item : tightest,
      )
    }
    if (retryAfterMs !== undefined) {
      this.pause(now, retryAfterMs)
      return
    }
    for (const limit of limits) {
      if (limit.remaining === 0 && limit.resetSeconds) this.pause(now, limit.resetSeconds * 1000)
    }
  }

  /** Sends nothing before `now + ms` (never shortens a pause already set). */
  pause(now: number, ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, now + Math.min(ms, this.maxPauseMs))
  }

  /**
   * Reserves the next send: the wait before it (0: now), or undefined, reserving nothing, when
   * that wait would be longer than `maxWaitMs`.
   */
  reserve(now: number, maxWaitMs = Number.POSITIVE_INFINITY): number | undefined {
    let at = Math.max(now, this.pausedUntil, this.sends.at(-1) ?? now)
    for (const { quota, windowSeconds } of this.policies) {
      if (windowSeconds === undefined || quota === 0) continue
      const q = Math.min(quota, MAX_REMEMBERED)
      // The q-th last send must be a whole window ago before another may go.
      const bound = this.sends[this.sends.length - q]
      if (bound !== undefined) at = Math.max(at, bound + windowSeconds * 1000)
    }
    if (at - now > maxWaitMs) return undefined
    this.sends.push(at)
    if (this.sends.length > 2 * MAX_REMEMBERED) this.sends = this.sends.slice(-MAX_REMEMBERED)
    return at - now
  }

  /** Whether the last answers said to wait: the 429's hint, or `r=0` with a `t`. */
  pausedAfter(now: number): boolean {
    return this.pausedUntil > now
  }

  state(now: number): RateLimitState {
    return {
      policies: this.policies.map((p) => ({ ...p })),
      ...(this.limit ? { limit: { ...this.limit } } : {}),
      ...(this.pausedUntil > now ? { pausedUntil: this.pausedUntil } : {}),
    }
  }
}
