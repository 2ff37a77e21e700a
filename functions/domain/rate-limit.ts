import type { ApiKeyRecord, Mode } from './api-key'

// LOCAL COPY of helper "limiter"'s contract (s40-common.md), replaced by theirs at the merge.

/** Requests a second a key may make when nobody set its own limit (Stripe's figures). */
export const DEFAULT_RATE_LIMITS: Readonly<Record<Mode, number>> = { TEST: 25, LIVE: 100 }

/** A key may spend this many times its limit at once after a quiet while. */
export const BURST_FACTOR = 2

/** The highest limit a key can have: the grant route's stage throttle (lib/stage-config.ts). */
export const MAX_RATE_LIMIT = 2_000

/** A key's limit in requests a second: its own, or its mode's default. */
export const rateLimitOf = (key: Pick<ApiKeyRecord, 'mode' | 'rateLimit'>): number =>
  key.rateLimit ?? DEFAULT_RATE_LIMITS[key.mode]
