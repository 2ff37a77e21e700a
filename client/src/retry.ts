export type RetryPolicy = {
  maxAttempts: number
  baseDelayMs: number
  maxDelayMs: number
  /** Each HTTP attempt is aborted after this long. */
  attemptTimeoutMs: number
  /** No attempt starts after this long from the first one (waits for the rate limit included). */
  deadlineMs: number
  /**
   * 429s waited out per call. They are not attempts (a refusal for the rate is no failure of the
   * request), so they have their own cap: a server that refuses forever cannot hold a call past it.
   * Optional, so that a policy written before it still type-checks (default 30).
   */
  maxRateLimitWaits?: number
}

export const DEFAULT_RETRY: Required<RetryPolicy> = {
  maxAttempts: 8,
  baseDelayMs: 100,
  maxDelayMs: 5_000,
  attemptTimeoutMs: 10_000,
  deadlineMs: 60_000,
  maxRateLimitWaits: 30,
}

/** 429, 503, other 5xx and a 409 request_conflict may succeed later; other 4xx never will. */
export const isRetryable = (status: number, code: string) =>
  status === 429 || status >= 500 || (status === 409 && code === 'request_conflict')

/**
 * After a failed attempt: how long to wait before the next one (exponential backoff with full
 * jitter, never less than the answer's Retry-After), or why not to try again. The contention
 * model (bench/contention/hot-program.ts) runs this very policy in virtual time.
 */
export const nextRetry = (
  policy: RetryPolicy,
  failed: { attempt: number; elapsedMs: number; retryable: boolean; retryAfterMs?: number },
  random: () => number,
): { waitMs: number } | { giveUp: 'not_retryable' | 'attempts' | 'deadline' } => {
  if (!failed.retryable) return { giveUp: 'not_retryable' }
  if (failed.attempt >= policy.maxAttempts) return { giveUp: 'attempts' }
  const backoff = random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** failed.attempt)
  const waitMs = Math.max(backoff, failed.retryAfterMs ?? 0)
  if (failed.elapsedMs + waitMs > policy.deadlineMs) return { giveUp: 'deadline' }
  return { waitMs }
}

/**
 * `Retry-After`: delay-seconds (digits only) or an HTTP-date; anything else is malformed and
 * ignored, so the caller falls back to its backoff.
 */
export const retryAfterMs = (header: string | null): number | undefined => {
  if (header === null) return undefined
  const value = header.trim()
  if (/^\d+$/.test(value)) return Number(value) * 1000
  // An HTTP-date names a day of the week first; Date.parse alone would take "1.5" as a date.
  const date = /^[A-Za-z]{3},/.test(value) ? Date.parse(value) : Number.NaN
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}
