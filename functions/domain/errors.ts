/**
 * Typed domain errors. Each carries its HTTP status and a stable machine `code`; the mapping to a
 * response happens in one place (problem.ts). Codes are part of the public contract: never rename.
 */
export type FieldError = { field: string; message: string }

/**
 * Every `code` the API can answer with, and its status: the public catalogue (docs/api.md,
 * OpenAPI). test/unit/problem.test.ts checks each error class against it.
 */
export const ERROR_CODES = {
  validation_failed: 400,
  malformed_json: 400,
  invalid_idempotency_key: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  unauthenticated: 401,
  mode_mismatch: 403,
  forbidden: 403,
  issuer_not_found: 404,
  key_not_found: 404,
  member_not_found: 404,
  batch_not_found: 404,
  program_not_found: 404,
  grant_not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  program_inactive: 409,
  pool_exhausted: 409,
  request_conflict: 409,
  last_owner: 409,
  program_state_conflict: 409,
  key_state_conflict: 409,
  member_exists: 409,
  member_active: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  internal_error: 500,
  service_unavailable: 503,
} as const

export type ErrorCode = keyof typeof ERROR_CODES

/**
 * Codes only the management API (the console's, behind sign-in) answers with. The integrators'
 * contract (openapi.json) leaves them out.
 */
export const MANAGEMENT_ONLY_CODES: readonly ErrorCode[] = [
  'unauthenticated',
  'forbidden',
  'issuer_not_found',
  'key_not_found',
  'member_not_found',
  'batch_not_found',
  'last_owner',
  'program_state_conflict',
  'key_state_conflict',
  'member_exists',
  'member_active',
]

export abstract class DomainError extends Error {
  abstract readonly status: number
  abstract readonly code: string
  abstract readonly title: string
  /** Seconds the client should wait before retrying; set only on retryable errors. */
  readonly retryAfterSeconds?: number
  readonly errors?: FieldError[]
  /** Extra response headers the answer must carry (for example `Allow` on a 405). */
  readonly headers?: Record<string, string>

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
  readonly status = 400
  readonly code = 'validation_failed'
  readonly title = 'Request validation failed'
  constructor(override readonly errors: FieldError[]) {
    super(errors.map((e) => `${e.field}: ${e.message}`).join('; '))
  }
}

export class MalformedJson extends DomainError {
  readonly status = 400
  readonly code = 'malformed_json'
  readonly title = 'Malformed JSON body'
}

export class InvalidIdempotencyKey extends DomainError {
  readonly status = 400
  readonly code = 'invalid_idempotency_key'
  readonly title = 'Invalid Idempotency-Key header'
}

export class MissingApiKey extends DomainError {
  readonly status = 401
  readonly code = 'missing_api_key'
  readonly title = 'API key required'
  constructor() {
    super('Send your API key in the x-api-key header.')
  }
}

/** One error for unknown, malformed, revoked and expired keys: the answer must not tell them apart. */
export class InvalidApiKey extends DomainError {
  readonly status = 401
  readonly code = 'invalid_api_key'
  readonly title = 'Invalid API key'
  constructor() {
    super('The API key is not valid. Check that it is complete, active and not expired.')
  }
}

/** A management route reached without a signed-in person (API Gateway's authorizer lets none through). */
export class Unauthenticated extends DomainError {
  readonly status = 401
  readonly code = 'unauthenticated'
  readonly title = 'Sign-in required'
  constructor() {
    super('Send an access token from the sign-in in the Authorization header: Bearer <token>.')
  }
}

/** A member whose role does not allow this; nothing was written. */
export class Forbidden extends DomainError {
  readonly status = 403
  readonly code = 'forbidden'
  readonly title = 'Not allowed for your role'
  constructor(role: string, needed: string) {
    super(`Your role in this issuer is ${role}; this needs ${needed} or above.`)
  }
}

/** Also the answer for an issuer the person is not a member of, so issuers cannot be probed. */
export class IssuerNotFound extends DomainError {
  readonly status = 404
  readonly code = 'issuer_not_found'
  readonly title = 'Issuer not found'
  constructor(issuerId: string) {
    super(`No issuer ${JSON.stringify(issuerId)} is visible to you.`)
  }
}

export class KeyNotFound extends DomainError {
  readonly status = 404
  readonly code = 'key_not_found'
  readonly title = 'API key not found'
  constructor(keyId: string) {
    super(`No API key ${JSON.stringify(keyId)} exists in this issuer.`)
  }
}

export class MemberNotFound extends DomainError {
  readonly status = 404
  readonly code = 'member_not_found'
  readonly title = 'Member not found'
  constructor(memberId: string) {
    super(`No member ${JSON.stringify(memberId)} exists in this issuer.`)
  }
}

/** An issuer always keeps at least one owner. */
/** No such batch of this program in this issuer (another issuer's answers the same). */
export class BatchNotFound extends DomainError {
  readonly status = 404
  readonly code = 'batch_not_found'
  readonly title = 'Batch not found'
  constructor(batchId: string) {
    super(`No batch ${JSON.stringify(batchId)} exists in this program of this issuer.`)
  }
}

export class LastOwner extends DomainError {
  readonly status = 409
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
  readonly status = 409
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
  readonly status = 409
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
  readonly status = 409
  readonly code = 'program_state_conflict'
  readonly title = 'Program state does not allow this'
}

/** A key change its state does not allow (only an active key can be rolled). Nothing was written. */
export class KeyStateConflict extends DomainError {
  readonly status = 409
  readonly code = 'key_state_conflict'
  readonly title = 'API key state does not allow this'
}

export class ModeMismatch extends DomainError {
  readonly status = 403
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
  readonly status = 404
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
  readonly status = 404
  readonly code = 'program_not_found'
  readonly title = 'Program not found'
  constructor(programId: string) {
    super(`No program ${JSON.stringify(programId)} exists in this issuer.`)
  }
}

export class GrantNotFound extends DomainError {
  readonly status = 404
  readonly code = 'grant_not_found'
  readonly title = 'Grant not found'
  constructor(grantId: string) {
    super(`No grant ${JSON.stringify(grantId)} exists in this program for this API key.`)
  }
}

export class RouteNotFound extends DomainError {
  readonly status = 404
  readonly code = 'route_not_found'
  readonly title = 'Route not found'
  constructor(method: string, path: string) {
    super(
      `No route for ${method} ${path}. Grants are made with POST /programs/{programId}/grant-tokens.`,
    )
  }
}

/**
 * A path the API has, with a method it has no route for. The `Allow` header lists the methods the
 * path does have (RFC 9110 15.5.6).
 */
export class MethodNotAllowed extends DomainError {
  readonly status = 405
  readonly code = 'method_not_allowed'
  readonly title = 'Method not allowed'
  override readonly headers: Record<string, string>
  constructor(method: string, path: string, allowed: readonly string[]) {
    super(`No route for ${method} ${path}; this path accepts ${allowed.join(', ')}.`)
    this.headers = { allow: allowed.join(', ') }
  }
}

export class PayloadTooLarge extends DomainError {
  readonly status = 413
  readonly code = 'payload_too_large'
  readonly title = 'Request body too large'
  constructor(limitBytes: number) {
    super(`The request body exceeds the limit of ${limitBytes} bytes.`)
  }
}

export class UnsupportedMediaType extends DomainError {
  readonly status = 415
  readonly code = 'unsupported_media_type'
  readonly title = 'Unsupported media type'
  constructor() {
    super('Send the body as JSON with the header Content-Type: application/json.')
  }
}

export class ProgramInactive extends DomainError {
  readonly status = 409
  readonly code = 'program_inactive'
  readonly title = 'Program is not active'
  constructor(programStatus: string) {
    super(`The program is ${programStatus} and does not accept grants.`)
  }
}

export class PoolExhausted extends DomainError {
  readonly status = 409
  readonly code = 'pool_exhausted'
  readonly title = 'Program pool exhausted'
  constructor(remaining: number, requested: number) {
    super(`The program has ${remaining} shares left in its pool; this grant asks for ${requested}.`)
  }
}

/** Another request on the same program or Idempotency-Key was committing at the same moment. */
export class RequestConflict extends DomainError {
  readonly status = 409
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
  readonly status = 422
  readonly code = 'idempotency_key_reused'
  readonly title = 'Idempotency-Key reused with a different request'
  constructor() {
    super(
      'This Idempotency-Key was already used with a different request. Use a new key for a new grant.',
    )
  }
}

export class ServiceUnavailable extends DomainError {
  readonly status = 503
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
