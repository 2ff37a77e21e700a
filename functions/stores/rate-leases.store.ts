/**
 * A key's rate limit as one GCRA bucket shared by every instance (domain/rate-limit.ts,
 * docs/decisions/rate-limits.md): an instance leases tokens from it, off the request path.
 */
export type RateLeaseRequest = {
  keyId: string
  /** Tokens wanted now (the instance's debt and its next quarter second). */
  tokens: number
  /** Requests a second, and the burst: the bucket's shape. */
  limit: number
  burst: number
  /** Epoch ms (the instance's wall clock). */
  now: number
}

/**
 * What the bucket granted (0..tokens) and its theoretical arrival time afterwards (epoch ms):
 * the time when the bucket would be full again. 'unavailable': DynamoDB is away, throttled or
 * slow; the caller decides (the limiter admits locally within the key's limit).
 */
export type RateLease = { granted: number; tat: number }

export interface RateLeaseStore {
  lease(
    request: RateLeaseRequest,
    options?: { signal?: AbortSignal },
  ): Promise<RateLease | 'unavailable'>
}
