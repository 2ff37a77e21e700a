/**
 * Documented limits of the grant contract (docs/api.md, "API contract"). A module of their own,
 * without zod, so the grant function reads its body cap at import while the body's schema
 * (grant-request.schema.ts) is evaluated on the first request (core/grant-tokens.ts).
 */
export const LIMITS = {
  maxAmount: 1_000_000,
  maxEmailLength: 254,
  maxReasonLength: 500,
  maxNameLength: 200,
  maxBodyBytes: 16 * 1024,
  maxIdempotencyKeyLength: 255,
} as const

/** An Idempotency-Key's characters: printable ASCII, as Stripe and the IETF draft allow. */
export const IDEMPOTENCY_KEY_CHARACTERS = /^[\x20-\x7e]+$/

/** The Idempotency-Key rule without zod (the request log keeps only a well-formed key). */
export const isWellFormedIdempotencyKey = (key: string): boolean =>
  key.length >= 1 &&
  key.length <= LIMITS.maxIdempotencyKeyLength &&
  IDEMPOTENCY_KEY_CHARACTERS.test(key)
