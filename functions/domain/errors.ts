/**
 * Typed domain errors: a stable machine `code`, a title and a detail, and no transport. The HTTP
 * status of each code lives in one place (functions/http/problem.ts), the CLI's wording in
 * another (cli/main.ts). Codes are part of the public contract: never rename.
 */
export type FieldError = { field: string; message: string }

/** Every `code` the service can answer with: the public catalogue (docs/api.md, OpenAPI). */
export type ErrorCode =
  | 'validation_failed'
  | 'malformed_json'
  | 'invalid_idempotency_key'
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'unauthenticated'
  | 'mode_mismatch'
  | 'forbidden'
  | 'issuer_not_found'
  | 'key_not_found'
  | 'member_not_found'
  | 'batch_not_found'
  | 'upload_not_found'
  | 'batch_finished'
  | 'webhook_endpoint_not_found'
  | 'webhook_message_not_found'
  | 'webhook_endpoint_limit'
  | 'webhook_endpoint_disabled'
  | 'program_not_found'
  | 'grant_not_found'
  | 'route_not_found'
  | 'method_not_allowed'
  | 'program_inactive'
  | 'pool_exhausted'
  | 'request_conflict'
  | 'last_owner'
  | 'program_state_conflict'
  | 'key_state_conflict'
  | 'member_exists'
  | 'member_active'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'idempotency_key_reused'
  | 'grant_accepted'
  | 'grant_state_conflict'
  | 'test_mode_only'
  | 'offer_link_invalid'
  | 'offer_expired'
  | 'offer_not_identified'
  | 'too_many_attempts'
  | 'link_expired'
  | 'session_expired'
  | 'resend_too_soon'
  | 'rate_limited'
  | 'internal_error'
  | 'service_unavailable'

/** `cause`: the error behind an answer (a timeout, a throttle), for the log, never the caller. */
type WithCause = { cause?: unknown }

export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode
  abstract readonly title: string
  /** Seconds the client should wait before retrying; set only on retryable errors. */
  readonly retryAfterSeconds?: number
  readonly errors?: FieldError[]
  /** Headers the answer carries besides the problem's (a 405's `Allow`). */
  readonly headers?: Record<string, string>

  constructor(
    readonly detail: string,
    options?: WithCause,
  ) {
    super(detail, options)
    this.name = new.target.name
  }
}

/**
 * A DomainError class with a fixed code and title, whose detail is made from the constructor's
 * arguments (then an optional `{ cause }`). Its name is the code in PascalCase unless given:
 * minified bundles rename classes. Pure, so a bundle keeps only the classes it uses.
 */
/* @__NO_SIDE_EFFECTS__ */
export function domainError<const C extends ErrorCode, A extends unknown[]>(
  code: C,
  title: string,
  detail: (...args: A) => string,
  name = code.replace(/(?:^|_)([a-z])/g, (_, letter: string) => letter.toUpperCase()),
) {
  const made = class extends DomainError {
    readonly code = code
    readonly title = title
    constructor(...args: [...A, options?: WithCause]) {
      // The detail ignores the options after its own arguments.
      super(detail(...(args as unknown as A)), args[detail.length] as WithCause)
    }
  }
  Object.defineProperty(made, 'name', { value: name })
  return made
}

/** The detail for errors whose thrower words it. */
export const asGiven = (detail: string) => detail

export class ValidationFailed extends DomainError {
  readonly code = 'validation_failed'
  readonly title = 'Request validation failed'
  constructor(override readonly errors: FieldError[]) {
    super(errors.map((e) => `${e.field}: ${e.message}`).join('; '))
  }
}

export const InvalidIdempotencyKey = domainError(
  'invalid_idempotency_key',
  'Invalid Idempotency-Key header',
  asGiven,
)

export const MissingApiKey = domainError(
  'missing_api_key',
  'API key required',
  () => 'Send your API key in the x-api-key header.',
)

/** One error for unknown, malformed, revoked and expired keys: the answer must not tell them apart. */
export const InvalidApiKey = domainError(
  'invalid_api_key',
  'Invalid API key',
  () => 'The API key is not valid. Check that it is complete, active and not expired.',
)

/** A management route reached without a signed-in person (API Gateway's authorizer lets none through). */
export const Unauthenticated = domainError(
  'unauthenticated',
  'Sign-in required',
  () => 'Send an access token from the sign-in in the Authorization header: Bearer <token>.',
)

/** A member whose role does not allow this; nothing was written. */
export const Forbidden = domainError(
  'forbidden',
  'Not allowed for your role',
  (role: string, needed: string) =>
    `Your role in this issuer is ${role}; this needs ${needed} or above.`,
)

/** Also the answer for an issuer the person is not a member of, so issuers cannot be probed. */
export const IssuerNotFound = domainError(
  'issuer_not_found',
  'Issuer not found',
  (issuerId: string) => `No issuer ${JSON.stringify(issuerId)} is visible to you.`,
)

export const KeyNotFound = domainError(
  'key_not_found',
  'API key not found',
  (keyId: string) => `No API key ${JSON.stringify(keyId)} exists in this issuer.`,
)

export const MemberNotFound = domainError(
  'member_not_found',
  'Member not found',
  (memberId: string) => `No member ${JSON.stringify(memberId)} exists in this issuer.`,
)

/** No such batch of this program in this issuer (another issuer's answers the same). */
export const BatchNotFound = domainError(
  'batch_not_found',
  'Batch not found',
  (batchId: string) => `No batch ${JSON.stringify(batchId)} exists in this program of this issuer.`,
)

/** A cancel of a batch that had already finished (every row tried) before anyone asked: nothing written. */
export const BatchFinished = domainError(
  'batch_finished',
  'Batch already finished',
  (batchId: string, status: string) =>
    `Batch ${batchId} is ${status}: every row was tried before the cancel, so there is nothing left to stop. Granted rows keep their grants; cancel a grant on its own page.`,
)

/**
 * No upload with this id for this program of this issuer: never made, never sent, made for another
 * program, or past the day uploads are kept.
 */
export const UploadNotFound = domainError(
  'upload_not_found',
  'Upload not found',
  (uploadId: string) =>
    `No uploaded CSV ${JSON.stringify(uploadId)} exists for this program: an upload is used by the program it was made for, once its POST to the upload URL has succeeded, for a day. Upload the file again (POST .../grant-batch-uploads, then the form).`,
)

/** No such webhook endpoint in this issuer (another issuer's, or a malformed id, answers the same). */
export const WebhookEndpointNotFound = domainError(
  'webhook_endpoint_not_found',
  'Webhook endpoint not found',
  (endpointId: string) =>
    `No webhook endpoint ${JSON.stringify(endpointId)} exists in this issuer.`,
)

/** No such message in this endpoint's delivery log (never sent, or older than the log keeps). */
export const WebhookMessageNotFound = domainError(
  'webhook_message_not_found',
  'Webhook message not found',
  (messageId: string) =>
    `No message ${JSON.stringify(messageId)} exists in this endpoint's delivery log (messages are kept 30 days).`,
)

/** The issuer already has the most endpoints a mode may have: nothing written. */
export const WebhookEndpointLimit = domainError(
  'webhook_endpoint_limit',
  'Too many webhook endpoints',
  (mode: string, limit: number) =>
    `This issuer already has ${limit} ${mode} webhook endpoints, the most a mode may have: delete one first, or subscribe an existing one to more event kinds.`,
)

export const WebhookEndpointDisabled = domainError(
  'webhook_endpoint_disabled',
  'The webhook endpoint is disabled',
  (endpointId: string) =>
    `Webhook endpoint ${endpointId} is disabled, so nothing is sent to it: enable it first (PATCH with enabled: true), then send the test or the replay.`,
)

export const LastOwner = domainError(
  'last_owner',
  'An issuer needs an owner',
  () =>
    "This is the issuer's last owner: make another member owner first, then change or remove this one.",
)

/** The address is already a member (or has a pending invitation) of this issuer; nothing was written. */
export const MemberExists = domainError(
  'member_exists',
  'Already a member',
  (email: string) =>
    `${email} is already a member of this issuer (or invited to it). Change their role instead, or resend a pending invitation.`,
)

/** A resend for a person who has already signed in and chosen a password; nothing was sent. */
export const MemberActive = domainError(
  'member_active',
  'Invitation already accepted',
  () =>
    'This person has already signed in and chosen a password: there is no invitation to resend. A forgotten password is reset from the sign-in page.',
)

/**
 * A program state change its current status does not allow: pause needs an active program, resume
 * a paused one, and a closed program stays closed. Nothing was written.
 */
export const ProgramStateConflict = domainError(
  'program_state_conflict',
  'Program state does not allow this',
  asGiven,
)

/** A key change its state does not allow (only an active key can be rolled). Nothing was written. */
export const KeyStateConflict = domainError(
  'key_state_conflict',
  'API key state does not allow this',
  asGiven,
)

export const ModeMismatch = domainError(
  'mode_mismatch',
  'API key mode does not match the program',
  (programMode: string, keyMode: string) =>
    `This program is in ${programMode} mode but the request used a ${keyMode} key. Use a ${programMode} key (vs_${programMode.toLowerCase()}_...) for this program.`,
)

/** Also the answer for another issuer's program, so ids of other tenants cannot be probed. */
export const ProgramNotFound = domainError(
  'program_not_found',
  'Program not found',
  (programId: string) => `No program ${JSON.stringify(programId)} is visible to this API key.`,
)

/**
 * The management API's `program_not_found`: no such program in the path's issuer, which is also
 * the answer for another issuer's program.
 */
export const IssuerProgramNotFound = domainError(
  'program_not_found',
  'Program not found',
  (programId: string) => `No program ${JSON.stringify(programId)} exists in this issuer.`,
  'IssuerProgramNotFound',
)

export const GrantNotFound = domainError(
  'grant_not_found',
  'Grant not found',
  (grantId: string) =>
    `No grant ${JSON.stringify(grantId)} exists in this program for this API key.`,
)

export const ProgramInactive = domainError(
  'program_inactive',
  'Program is not active',
  (programStatus: string) => `The program is ${programStatus} and does not accept grants.`,
)

export const PoolExhausted = domainError(
  'pool_exhausted',
  'Program pool exhausted',
  (remaining: number, requested: number) =>
    `The program has ${remaining} shares left in its pool; this grant asks for ${requested}.`,
)

/** Another request on the same program or Idempotency-Key was committing at the same moment. */
export class RequestConflict extends domainError(
  'request_conflict',
  'Concurrent request conflict',
  () =>
    'A concurrent request on the same program or Idempotency-Key was being committed. Retry with the same Idempotency-Key.',
) {
  override readonly retryAfterSeconds = 1
}

export const IdempotencyKeyReused = domainError(
  'idempotency_key_reused',
  'Idempotency-Key reused with a different request',
  () =>
    'This Idempotency-Key was already used with a different request. Use a new key for a new grant.',
)

export class ServiceUnavailable extends domainError(
  'service_unavailable',
  'Service temporarily unavailable',
  () =>
    'The database is throttled or did not answer in time. Retry with the same Idempotency-Key: a grant is made at most once.',
) {
  override readonly retryAfterSeconds = 1
}

/** Cancel (or any change) of an accepted grant: accepted is final. */
export const GrantAccepted = domainError(
  'grant_accepted',
  'Grant already accepted',
  (grantId: string) =>
    `Grant ${grantId} was accepted by its recipient; an accepted grant is final.`,
)

/** The grant's state does not allow this change (rejected, expired, or not yet offered). */
export class GrantStateConflict extends DomainError {
  readonly code = 'grant_state_conflict'
  readonly title = 'Grant state does not allow this'
  constructor(
    grantId: string,
    readonly state: string,
    why: string,
  ) {
    super(`Grant ${grantId} is ${state}: ${why}`)
  }
}

/** A call that only TEST mode offers, on a LIVE grant or with a LIVE key. */
export const TestModeOnly = domainError(
  'test_mode_only',
  'Only in TEST mode',
  () => 'Moving a grant on demand is for TEST grants only; LIVE grants move by their recipient.',
)

/**
 * One answer for a link token that is unknown, used (no open offer left) or past its offer: the
 * page then asks for the address, so nobody learns which addresses hold offers.
 */
export const OfferLinkInvalid = domainError(
  'offer_link_invalid',
  'Link not valid',
  () => 'This link is not valid any more. Ask for a new one with your e-mail address.',
)

export const OfferExpired = domainError(
  'offer_expired',
  'Offer expired',
  () => 'This offer has expired and can no longer be accepted or declined.',
)

export const OfferNotIdentified = domainError(
  'offer_not_identified',
  'Identify first',
  () => 'Confirm your details first; then you can accept the offer.',
)

/** A holdings sign-in link that is unknown, used or past its 15 minutes: one answer for all. */
export const LinkExpired = domainError(
  'link_expired',
  'Link expired',
  () => 'This sign-in link has expired or was already used. Ask for a new one.',
)

/** A holdings session that is unknown, ended or idle too long: one answer for all. */
export const SessionExpired = domainError(
  'session_expired',
  'Session expired',
  () => 'Your session has ended. Ask for a new sign-in link.',
)

/** A public endpoint's attempts per token or per address ran out for now. */
export class TooManyAttempts extends DomainError {
  readonly code = 'too_many_attempts'
  readonly title = 'Too many attempts'
  constructor(override readonly retryAfterSeconds: number) {
    super(`Too many attempts. Try again in ${retryAfterSeconds} seconds.`)
  }
}

export class ResendTooSoon extends DomainError {
  readonly code = 'resend_too_soon'
  readonly title = 'Offer sent recently'
  constructor(override readonly retryAfterSeconds: number) {
    super(`The offer was sent moments ago; it can be sent again in ${retryAfterSeconds} seconds.`)
  }
}

/**
 * The API key is over its rate limit (domain/rate-limit.ts): nothing was done. The answer carries
 * `Retry-After` and the RateLimit fields (`headers`), as every answer of the integrator API does.
 */
export class RateLimited extends DomainError {
  readonly code = 'rate_limited'
  readonly title = 'Rate limit exceeded'
  constructor(
    readonly limit: number,
    override readonly retryAfterSeconds: number,
    override readonly headers: Record<string, string> = {},
  ) {
    super(
      `This API key is over its limit of ${limit} requests a second; nothing was done. Retry in ${retryAfterSeconds} seconds.`,
    )
  }
}
