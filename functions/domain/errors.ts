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
  | 'resend_too_soon'
  | 'internal_error'
  | 'service_unavailable'

export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode
  abstract readonly title: string
  /** Seconds the client should wait before retrying; set only on retryable errors. */
  readonly retryAfterSeconds?: number
  readonly errors?: FieldError[]

  /** `cause`: the error behind this answer (a timeout, a throttle), for the log, never the caller. */
  constructor(
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(detail, options)
    this.name = new.target.name
  }
}

export class ValidationFailed extends DomainError {
  readonly code = 'validation_failed'
  readonly title = 'Request validation failed'
  constructor(override readonly errors: FieldError[]) {
    super(errors.map((e) => `${e.field}: ${e.message}`).join('; '))
  }
}

export class InvalidIdempotencyKey extends DomainError {
  readonly code = 'invalid_idempotency_key'
  readonly title = 'Invalid Idempotency-Key header'
}

export class MissingApiKey extends DomainError {
  readonly code = 'missing_api_key'
  readonly title = 'API key required'
  constructor() {
    super('Send your API key in the x-api-key header.')
  }
}

/** One error for unknown, malformed, revoked and expired keys: the answer must not tell them apart. */
export class InvalidApiKey extends DomainError {
  readonly code = 'invalid_api_key'
  readonly title = 'Invalid API key'
  constructor() {
    super('The API key is not valid. Check that it is complete, active and not expired.')
  }
}

/** A management route reached without a signed-in person (API Gateway's authorizer lets none through). */
export class Unauthenticated extends DomainError {
  readonly code = 'unauthenticated'
  readonly title = 'Sign-in required'
  constructor() {
    super('Send an access token from the sign-in in the Authorization header: Bearer <token>.')
  }
}

/** A member whose role does not allow this; nothing was written. */
export class Forbidden extends DomainError {
  readonly code = 'forbidden'
  readonly title = 'Not allowed for your role'
  constructor(role: string, needed: string) {
    super(`Your role in this issuer is ${role}; this needs ${needed} or above.`)
  }
}

/** Also the answer for an issuer the person is not a member of, so issuers cannot be probed. */
export class IssuerNotFound extends DomainError {
  readonly code = 'issuer_not_found'
  readonly title = 'Issuer not found'
  constructor(issuerId: string) {
    super(`No issuer ${JSON.stringify(issuerId)} is visible to you.`)
  }
}

export class KeyNotFound extends DomainError {
  readonly code = 'key_not_found'
  readonly title = 'API key not found'
  constructor(keyId: string) {
    super(`No API key ${JSON.stringify(keyId)} exists in this issuer.`)
  }
}

export class MemberNotFound extends DomainError {
  readonly code = 'member_not_found'
  readonly title = 'Member not found'
  constructor(memberId: string) {
    super(`No member ${JSON.stringify(memberId)} exists in this issuer.`)
  }
}

/** An issuer always keeps at least one owner. */
/** No such batch of this program in this issuer (another issuer's answers the same). */
export class BatchNotFound extends DomainError {
  readonly code = 'batch_not_found'
  readonly title = 'Batch not found'
  constructor(batchId: string) {
    super(`No batch ${JSON.stringify(batchId)} exists in this program of this issuer.`)
  }
}

/** A cancel of a batch that had already finished (every row tried) before anyone asked: nothing written. */
export class BatchFinished extends DomainError {
  readonly code = 'batch_finished'
  readonly title = 'Batch already finished'
  constructor(batchId: string, status: string) {
    super(
      `Batch ${batchId} is ${status}: every row was tried before the cancel, so there is nothing left to stop. Granted rows keep their grants; cancel a grant on its own page.`,
    )
  }
}

/**
 * No upload with this id for this program of this issuer: never made, never sent, made for another
 * program, or past the day uploads are kept.
 */
export class UploadNotFound extends DomainError {
  readonly code = 'upload_not_found'
  readonly title = 'Upload not found'
  constructor(uploadId: string) {
    super(
      `No uploaded CSV ${JSON.stringify(uploadId)} exists for this program: an upload is used by the program it was made for, once its POST to the upload URL has succeeded, for a day. Upload the file again (POST .../grant-batch-uploads, then the form).`,
    )
  }
}

/** No such webhook endpoint in this issuer (another issuer's, or a malformed id, answers the same). */
export class WebhookEndpointNotFound extends DomainError {
  readonly code = 'webhook_endpoint_not_found'
  readonly title = 'Webhook endpoint not found'
  constructor(endpointId: string) {
    super(`No webhook endpoint ${JSON.stringify(endpointId)} exists in this issuer.`)
  }
}

/** No such message in this endpoint's delivery log (never sent, or older than the log keeps). */
export class WebhookMessageNotFound extends DomainError {
  readonly code = 'webhook_message_not_found'
  readonly title = 'Webhook message not found'
  constructor(messageId: string) {
    super(
      `No message ${JSON.stringify(messageId)} exists in this endpoint's delivery log (messages are kept 30 days).`,
    )
  }
}

/** The issuer already has the most endpoints a mode may have: nothing written. */
export class WebhookEndpointLimit extends DomainError {
  readonly code = 'webhook_endpoint_limit'
  readonly title = 'Too many webhook endpoints'
  constructor(mode: string, limit: number) {
    super(
      `This issuer already has ${limit} ${mode} webhook endpoints, the most a mode may have: delete one first, or subscribe an existing one to more event kinds.`,
    )
  }
}

export class WebhookEndpointDisabled extends DomainError {
  readonly code = 'webhook_endpoint_disabled'
  readonly title = 'The webhook endpoint is disabled'
  constructor(endpointId: string) {
    super(
      `Webhook endpoint ${endpointId} is disabled, so nothing is sent to it: enable it first (PATCH with enabled: true), then send the test or the replay.`,
    )
  }
}

export class LastOwner extends DomainError {
  readonly code = 'last_owner'
  readonly title = 'An issuer needs an owner'
  constructor() {
    super(
      "This is the issuer's last owner: make another member owner first, then change or remove this one.",
    )
  }
}

/** The address is already a member (or has a pending invitation) of this issuer; nothing was written. */
export class MemberExists extends DomainError {
  readonly code = 'member_exists'
  readonly title = 'Already a member'
  constructor(email: string) {
    super(
      `${email} is already a member of this issuer (or invited to it). Change their role instead, or resend a pending invitation.`,
    )
  }
}

/** A resend for a person who has already signed in and chosen a password; nothing was sent. */
export class MemberActive extends DomainError {
  readonly code = 'member_active'
  readonly title = 'Invitation already accepted'
  constructor() {
    super(
      'This person has already signed in and chosen a password: there is no invitation to resend. A forgotten password is reset from the sign-in page.',
    )
  }
}

/**
 * A program state change its current status does not allow: pause needs an active program, resume
 * a paused one, and a closed program stays closed. Nothing was written.
 */
export class ProgramStateConflict extends DomainError {
  readonly code = 'program_state_conflict'
  readonly title = 'Program state does not allow this'
}

/** A key change its state does not allow (only an active key can be rolled). Nothing was written. */
export class KeyStateConflict extends DomainError {
  readonly code = 'key_state_conflict'
  readonly title = 'API key state does not allow this'
}

export class ModeMismatch extends DomainError {
  readonly code = 'mode_mismatch'
  readonly title = 'API key mode does not match the program'
  constructor(programMode: string, keyMode: string) {
    super(
      `This program is in ${programMode} mode but the request used a ${keyMode} key. Use a ${programMode} key (vs_${programMode.toLowerCase()}_...) for this program.`,
    )
  }
}

/** Also the answer for another issuer's program, so ids of other tenants cannot be probed. */
export class ProgramNotFound extends DomainError {
  readonly code = 'program_not_found'
  readonly title = 'Program not found'
  constructor(programId: string) {
    super(`No program ${JSON.stringify(programId)} is visible to this API key.`)
  }
}

/**
 * The management API's `program_not_found`: no such program in the path's issuer, which is also
 * the answer for another issuer's program.
 */
export class IssuerProgramNotFound extends DomainError {
  readonly code = 'program_not_found'
  readonly title = 'Program not found'
  constructor(programId: string) {
    super(`No program ${JSON.stringify(programId)} exists in this issuer.`)
  }
}

export class GrantNotFound extends DomainError {
  readonly code = 'grant_not_found'
  readonly title = 'Grant not found'
  constructor(grantId: string) {
    super(`No grant ${JSON.stringify(grantId)} exists in this program for this API key.`)
  }
}

export class ProgramInactive extends DomainError {
  readonly code = 'program_inactive'
  readonly title = 'Program is not active'
  constructor(programStatus: string) {
    super(`The program is ${programStatus} and does not accept grants.`)
  }
}

export class PoolExhausted extends DomainError {
  readonly code = 'pool_exhausted'
  readonly title = 'Program pool exhausted'
  constructor(remaining: number, requested: number) {
    super(`The program has ${remaining} shares left in its pool; this grant asks for ${requested}.`)
  }
}

/** Another request on the same program or Idempotency-Key was committing at the same moment. */
export class RequestConflict extends DomainError {
  readonly code = 'request_conflict'
  readonly title = 'Concurrent request conflict'
  override readonly retryAfterSeconds = 1
  constructor(options?: { cause?: unknown }) {
    super(
      'A concurrent request on the same program or Idempotency-Key was being committed. Retry with the same Idempotency-Key.',
      options,
    )
  }
}

export class IdempotencyKeyReused extends DomainError {
  readonly code = 'idempotency_key_reused'
  readonly title = 'Idempotency-Key reused with a different request'
  constructor() {
    super(
      'This Idempotency-Key was already used with a different request. Use a new key for a new grant.',
    )
  }
}

export class ServiceUnavailable extends DomainError {
  readonly code = 'service_unavailable'
  readonly title = 'Service temporarily unavailable'
  override readonly retryAfterSeconds = 1
  constructor(options?: { cause?: unknown }) {
    super(
      'The database is throttled or did not answer in time. Retry with the same Idempotency-Key: a grant is made at most once.',
      options,
    )
  }
}

/** Cancel (or any change) of an accepted grant: accepted is final. */
export class GrantAccepted extends DomainError {
  readonly code = 'grant_accepted'
  readonly title = 'Grant already accepted'
  constructor(grantId: string) {
    super(`Grant ${grantId} was accepted by its recipient; an accepted grant is final.`)
  }
}

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
export class TestModeOnly extends DomainError {
  readonly code = 'test_mode_only'
  readonly title = 'Only in TEST mode'
  constructor() {
    super('Moving a grant on demand is for TEST grants only; LIVE grants move by their recipient.')
  }
}

/**
 * One answer for a link token that is unknown, used (no open offer left) or past its offer: the
 * page then asks for the address, so nobody learns which addresses hold offers.
 */
export class OfferLinkInvalid extends DomainError {
  readonly code = 'offer_link_invalid'
  readonly title = 'Link not valid'
  constructor() {
    super('This link is not valid any more. Ask for a new one with your e-mail address.')
  }
}

export class OfferExpired extends DomainError {
  readonly code = 'offer_expired'
  readonly title = 'Offer expired'
  constructor() {
    super('This offer has expired and can no longer be accepted or declined.')
  }
}

export class OfferNotIdentified extends DomainError {
  readonly code = 'offer_not_identified'
  readonly title = 'Identify first'
  constructor() {
    super('Confirm your details first; then you can accept the offer.')
  }
}

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
