/**
 * The webhook event kinds and the limits on endpoints and their delivery log (issue 21), without
 * dependencies: the service (webhooks.ts re-exports them) and the console say the same numbers.
 */

export const WEBHOOK_EVENT_KINDS = [
  'grant.created',
  'grant.offered',
  'grant.accepted',
  'grant.rejected',
  'grant.expired',
  'grant.canceled',
  'grant.delivery_failed',
  'batch.completed',
  'program.pool_low',
  'program.value_changed',
] as const
export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number]

/** Limits an issuer's endpoints and what is kept of an attempt. */
export const WEBHOOK_LIMITS = {
  /** Endpoints per issuer and mode. */
  endpointsPerMode: 10,
  urlMaxLength: 2048,
  descriptionMaxLength: 200,
  /** The response body read at most (bytes); the rest is never read. */
  responseReadBytes: 4096,
  /** What an attempt keeps of the response body (characters), for the delivery log. */
  responseKeptChars: 500,
  /** A receiver has this long to answer, headers and the capped body. */
  timeoutMs: 15_000,
  /** Message items (and their attempts) are kept this long (the table's TTL, `purgeAt`). */
  keepDays: 30,
  /** After a rotation the old secret signs alongside the new one this long. */
  rotationOverlapHours: 24,
  /** An endpoint whose every attempt failed this long is disabled and its owners e-mailed. */
  disableAfterFailingDays: 5,
} as const
