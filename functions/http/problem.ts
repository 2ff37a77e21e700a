import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda'
// The error class alone: the zod/mini namespace object would drag every locale into the bundle.
import { $ZodError } from 'zod/v4/core'
import type { AdminRefusal } from '../domain/admin-errors'
import {
  DomainError,
  type ErrorCode,
  IssuerNotFound,
  IssuerProgramNotFound,
  KeyNotFound,
  KeyStateConflict,
  ProgramStateConflict,
  RequestConflict,
  ServiceUnavailable,
  ValidationFailed,
} from '../domain/errors'
import { zodIssuesToFieldErrors } from '../domain/validation'
import { transientKind } from '../stores/store-errors'
import { MalformedJson } from './request-errors'

/**
 * Every `code` and its HTTP status: the public catalogue (docs/api.md, OpenAPI), the one place a
 * domain error becomes a status. test/unit/problem.test.ts checks each error class against it.
 */
export const ERROR_CODES: Readonly<Record<ErrorCode, number>> = {
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
  upload_not_found: 404,
  batch_finished: 409,
  webhook_endpoint_not_found: 404,
  webhook_message_not_found: 404,
  webhook_endpoint_limit: 409,
  webhook_endpoint_disabled: 409,
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
  grant_accepted: 409,
  grant_state_conflict: 409,
  test_mode_only: 409,
  offer_link_invalid: 404,
  offer_expired: 409,
  offer_not_identified: 409,
  too_many_attempts: 429,
  link_expired: 410,
  session_expired: 401,
  resend_too_soon: 429,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
}

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
  'upload_not_found',
  'batch_finished',
  'webhook_endpoint_not_found',
  'webhook_message_not_found',
  'webhook_endpoint_limit',
  'webhook_endpoint_disabled',
  'last_owner',
  'program_state_conflict',
  'key_state_conflict',
  'member_exists',
  'member_active',
  'resend_too_soon',
]

export const PROBLEM_CONTENT_TYPE = 'application/problem+json'
export const problemType = (code: string) => `urn:virtual-shares:problem:${code}`

/** RFC 9457 problem details, plus the stable `code` and the request id. */
export type Problem = {
  type: string
  title: string
  status: number
  detail: string
  code: string
  requestId: string
  errors?: { field: string; message: string }[]
}

/**
 * An error raised by @middy/http-json-body-parser. Our guard before it (middleware.ts) has already
 * answered every other case (media type, size, empty body, invalid UTF-8), so it can only mean
 * that the body is not JSON.
 */
const isBodyParserError = (error: unknown) =>
  error instanceof Error &&
  (error.cause as { package?: unknown } | undefined)?.package === '@middy/http-json-body-parser'

/**
 * What the admin use cases (domain/admin-errors.ts) and the stores (store-errors.ts) report, as
 * the API's errors. Another issuer's program or key is reported by the use cases exactly as a
 * missing one, and a malformed id too, so each answers the same 404.
 */
const fromUseCase = (error: unknown): DomainError | undefined => {
  // Read by `fact`, not instanceof: the routes that never meet them do not load the classes.
  const refusal = error instanceof Error ? (error as Partial<AdminRefusal>) : undefined
  switch (refusal?.fact) {
    case 'invalid_input': {
      const { problems } = refusal as Extract<AdminRefusal, { fact: 'invalid_input' }>
      return new ValidationFailed(
        problems.map((p) => ({ field: p.field, message: `${p.field} ${p.rule}` })),
      )
    }
    case 'invalid_id':
    case 'not_found': {
      const { kind, id } = refusal as Extract<AdminRefusal, { fact: 'not_found' }>
      if (kind === 'program') return new IssuerProgramNotFound(id)
      return kind === 'key' ? new KeyNotFound(id) : new IssuerNotFound(id)
    }
    case 'state_conflict': {
      const { kind, message } = refusal as Extract<AdminRefusal, { fact: 'state_conflict' }>
      return kind === 'program' ? new ProgramStateConflict(message) : new KeyStateConflict(message)
    }
    case 'write_conflict':
      return new RequestConflict({ cause: error })
    default:
      return undefined
  }
}

/** Turns anything thrown by a handler into a DomainError; unknown errors become undefined (500). */
export const toDomainError = (error: unknown): DomainError | undefined => {
  if (error instanceof DomainError) return error
  const reported = fromUseCase(error)
  if (reported) return reported
  if (error instanceof $ZodError) return new ValidationFailed(zodIssuesToFieldErrors(error))
  if (isBodyParserError(error)) {
    return new MalformedJson('The request body is not valid JSON.', { cause: error })
  }
  // A store's or the SDK's busy, away or aborted (the request's deadline: answer before Lambda's
  // timeout) call, as the answer to retry.
  const transient = transientKind(error)
  if (transient === 'conflict') return new RequestConflict({ cause: error })
  if (transient === 'unavailable') return new ServiceUnavailable({ cause: error })
  return undefined
}

/** The single place where errors become HTTP responses. */
export const problemResponse = (
  error: unknown,
  requestId: string,
): { response: APIGatewayProxyStructuredResultV2; problem: Problem; known: boolean } => {
  const domain = toDomainError(error)
  const problem: Problem = domain
    ? {
        type: problemType(domain.code),
        title: domain.title,
        status: ERROR_CODES[domain.code],
        detail: domain.detail,
        code: domain.code,
        requestId,
        ...(domain.errors ? { errors: domain.errors } : {}),
      }
    : {
        // Deliberately generic: internal messages and stacks go to the log, never to the caller.
        type: problemType('internal_error'),
        title: 'Internal server error',
        status: 500,
        detail: 'An unexpected error occurred. Retry with the same Idempotency-Key.',
        code: 'internal_error',
        requestId,
      }
  const headers: Record<string, string> = {
    ...domain?.headers,
    'content-type': PROBLEM_CONTENT_TYPE,
  }
  if (domain?.retryAfterSeconds !== undefined) {
    headers['retry-after'] = String(domain.retryAfterSeconds)
  }
  return {
    response: { statusCode: problem.status, headers, body: JSON.stringify(problem) },
    problem,
    known: domain !== undefined,
  }
}
