import type { ApiKeyRecord, Mode } from './api-key'

/**
 * Per-key rate limits (issue 33, docs/decisions/rate-limits.md): requests a second per API key,
 * the same across every warm Lambda instance, with a burst of BURST_FACTOR times the limit.
 * Stripe's figures by default; a key's own `rateLimit` (requests a second) replaces them.
 */
export const DEFAULT_RATE_LIMITS: Readonly<Record<Mode, number>> = { TEST: 25, LIVE: 100 }
export const BURST_FACTOR = 2
/** The grant route's stage throttle (lib/stage-config.ts GRANT_THROTTLE_DEFAULTS): no key may pass it. */
export const MAX_RATE_LIMIT = 2_000

export const rateLimitOf = (key: Pick<ApiKeyRecord, 'mode' | 'rateLimit'>): number =>
  key.rateLimit ?? DEFAULT_RATE_LIMITS[key.mode]

export const burstOf = (limit: number): number => limit * BURST_FACTOR

/**
 * GCRA (the generic cell rate algorithm): a token bucket kept as one number per key, its
 * "theoretical arrival time" (tat). Each token moves tat on by the emission interval T = 1/limit;
 * a request is admitted while tat stays within burst×T of now. Times are integer epoch
 * microseconds so the arithmetic (here and in DynamoDB's conditions) is exact.
 */
export const emissionIntervalUs = (limit: number): number => Math.max(1, Math.round(1e6 / limit))

export const msToUs = (ms: number): number => Math.round(ms * 1000)

/** The emission interval, and where the bucket's next token starts (an unknown tat: now). */
const shape = (tatUs: number | undefined, nowUs: number, limit: number) => ({
  t: emissionIntervalUs(limit),
  from: Math.max(tatUs ?? nowUs, nowUs),
})

/** Whole tokens the bucket holds at `nowUs` (0..burst); an unknown tat is a full bucket. */
export const gcraAvailable = (
  tatUs: number | undefined,
  nowUs: number,
  limit: number,
  burst: number,
): number => {
  const { t, from } = shape(tatUs, nowUs, limit)
  return Math.max(0, Math.min(burst, Math.floor((nowUs + burst * t - from) / t)))
}

/** Takes up to `tokens` at `nowUs`: how many the bucket grants and its tat afterwards. */
export const gcraTake = (
  tatUs: number | undefined,
  nowUs: number,
  tokens: number,
  limit: number,
  burst: number,
): { granted: number; tatUs: number } => {
  const granted = Math.min(
    Math.max(0, Math.floor(tokens)),
    gcraAvailable(tatUs, nowUs, limit, burst),
  )
  const { t, from } = shape(tatUs, nowUs, limit)
  return { granted, tatUs: granted > 0 ? from + granted * t : (tatUs ?? nowUs) }
}

/** Microseconds until the bucket holds one token again (0 when it holds one now). */
export const gcraWaitUs = (
  ...[tatUs, nowUs, limit, burst]: Parameters<typeof gcraAvailable>
): number => {
  const { t, from } = shape(tatUs, nowUs, limit)
  return Math.max(0, from + t - (nowUs + burst * t))
}

/** Whole seconds until the bucket is full again (the RateLimit field's `t`): 0 when it is. */
export const gcraResetSeconds = (tatUs: number | undefined, nowUs: number): number =>
  Math.max(0, Math.ceil(((tatUs ?? nowUs) - nowUs) / 1e6))

/** `Retry-After` for a refusal: whole seconds, at least 1 (RFC 9110 delay-seconds). */
export const retryAfterSecondsOf = (waitUs: number): number => Math.max(1, Math.ceil(waitUs / 1e6))

/**
 * The fields of draft-ietf-httpapi-ratelimit-headers-11: both are Structured Field Lists (RFC
 * 9651) of one Item, the policy's name ("key": the limit is per API key) with its parameters:
 * `q` the quota and `w` its window in seconds; `r` what remains and `t` seconds until it resets.
 */
export const RATE_LIMIT_POLICY_NAME = 'key'
export const rateLimitPolicyField = (limit: number): string =>
  `"${RATE_LIMIT_POLICY_NAME}";q=${limit};w=1`
export const rateLimitField = (remaining: number, resetSeconds: number): string =>
  `"${RATE_LIMIT_POLICY_NAME}";r=${Math.max(0, Math.floor(remaining))};t=${Math.max(0, Math.ceil(resetSeconds))}`

/** The answer's fields for a decision (success and refusal alike). */
export const rateLimitHeaders = (decision: {
  limit: number
  remaining: number
  resetSeconds: number
}): Record<string, string> => ({
  'ratelimit-policy': rateLimitPolicyField(decision.limit),
  ratelimit: rateLimitField(decision.remaining, decision.resetSeconds),
})
