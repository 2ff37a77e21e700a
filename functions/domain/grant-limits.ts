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
