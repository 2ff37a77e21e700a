import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda'
// The error class alone: the zod/mini namespace object would drag every locale into the bundle.
import { $ZodError } from 'zod/v4/core'
import {
  InvalidId,
  InvalidInput,
  NotFound,
  StateConflict,
  WriteConflictError,
} from '../domain/admin-errors'
import {
  DomainError,
  IssuerNotFound,
  IssuerProgramNotFound,
  KeyNotFound,
  KeyStateConflict,
  MalformedJson,
  ProgramStateConflict,
  RequestConflict,
  ServiceUnavailable,
  ValidationFailed,
} from '../domain/errors'
import { StoreUnavailable } from '../stores/store-errors'

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

/** AWS SDK error names that mean "the database is busy or away", never "your request is wrong". */
const TRANSIENT_AWS_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'LimitExceededException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
])
/** Another transaction held the item; the same request can succeed a moment later. */
const CONFLICT_AWS_ERRORS = new Set([
  'TransactionConflictException',
  'TransactionInProgressException',
])
const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
])

/** True when an error from the AWS SDK (or the socket under it) is worth retrying later. */
export const isTransientAwsError = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false
  const e = error as Error & {
    code?: string
    $retryable?: unknown
    $metadata?: { httpStatusCode?: number }
  }
  if (TRANSIENT_AWS_ERRORS.has(e.name)) return true
  if (e.code !== undefined && TRANSIENT_NETWORK_CODES.has(e.code)) return true
  if (e.$retryable !== undefined) return true
  const status = e.$metadata?.httpStatusCode
  return status !== undefined && status >= 500
}

const fieldName = (path: PropertyKey[]) => (path.length > 0 ? path.map(String).join('.') : '(body)')

/** One entry per failing field; an unknown key is named as a field of its own. */
export const zodIssuesToFieldErrors = (error: $ZodError) =>
  error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          field: fieldName([...issue.path, key]),
          message: `unknown field ${JSON.stringify(key)}`,
        }))
      : [{ field: fieldName(issue.path), message: issue.message }],
  )

/**
 * An error raised by @middy/http-json-body-parser. Our guard before it (middleware.ts) has already
 * answered every other case (media type, size, empty body, invalid UTF-8), so it can only mean
 * that the body is not JSON.
 */
const isBodyParserError = (error: unknown) =>
  error instanceof Error &&
  (error.cause as { package?: unknown } | undefined)?.package === '@middy/http-json-body-parser'

/** Turns anything thrown by a handler into a DomainError; unknown errors become undefined (500). */
/**
 * What the admin use cases (domain/admin-errors.ts) and the stores (store-errors.ts) report, as
 * the API's errors. Another issuer's program or key is reported by the use cases exactly as a
 * missing one, and a malformed id too, so each answers the same 404.
 */
const fromUseCase = (error: unknown): DomainError | undefined => {
  if (error instanceof InvalidInput) {
    return new ValidationFailed(
      error.problems.map((p) => ({ field: p.field, message: `${p.field} ${p.rule}` })),
    )
  }
  if (error instanceof NotFound || error instanceof InvalidId) {
    if (error.kind === 'program') return new IssuerProgramNotFound(error.id)
    return error.kind === 'key' ? new KeyNotFound(error.id) : new IssuerNotFound(error.id)
  }
  if (error instanceof StateConflict) {
    return error.kind === 'program'
      ? new ProgramStateConflict(error.message)
      : new KeyStateConflict(error.message)
  }
  if (error instanceof WriteConflictError) return new RequestConflict({ cause: error })
  if (error instanceof StoreUnavailable) {
    if (error.reason === 'conflict') return new RequestConflict({ cause: error })
    if (error.reason === 'throttled') return new ServiceUnavailable({ cause: error })
  }
  return undefined
}

export const toDomainError = (error: unknown): DomainError | undefined => {
  if (error instanceof DomainError) return error
  const reported = fromUseCase(error)
  if (reported) return reported
  if (error instanceof $ZodError) return new ValidationFailed(zodIssuesToFieldErrors(error))
  if (isBodyParserError(error)) {
    return new MalformedJson('The request body is not valid JSON.', { cause: error })
  }
  if (error instanceof Error && CONFLICT_AWS_ERRORS.has(error.name)) {
    return new RequestConflict({ cause: error })
  }
  // The request's deadline (deadline.ts) aborted a DynamoDB call: answer before Lambda's timeout.
  if (error instanceof Error && error.name === 'AbortError') {
    return new ServiceUnavailable({ cause: error })
  }
  if (isTransientAwsError(error)) return new ServiceUnavailable({ cause: error })
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
        status: domain.status,
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
