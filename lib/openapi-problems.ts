import * as z from 'zod/mini'
import type { ErrorCode } from '../functions/domain/errors'
import { ERROR_CODES, MANAGEMENT_ONLY_CODES, problemType } from '../functions/http/problem'
import { type Json, jsonSchema, RATE_LIMIT_HEADERS, REQUEST_ID } from './openapi-parts'

/**
 * Part of openapi.json: the problem answers (RFC 9457), from the error catalogue
 * (functions/http/problem.ts): the integrators' codes, and every code for the management routes.
 */
// The integrators' contract: the management API's own codes are not part of it.
export const codes = (Object.keys(ERROR_CODES) as ErrorCode[]).filter(
  (code) => !MANAGEMENT_ONLY_CODES.includes(code),
)
/** A problem (RFC 9457) whose `code` is one of these. */
const problemSchemaOf = (list: ErrorCode[]) =>
  z.object({
    type: z.string(),
    title: z.string(),
    status: z.int(),
    detail: z.string(),
    code: z.enum(list as [ErrorCode, ...ErrorCode[]]),
    requestId: z.string(),
    errors: z.optional(z.array(z.object({ field: z.string(), message: z.string() }))),
  })
export const ProblemSchema = problemSchemaOf(codes)

const STATUS_TEXT: Record<number, string> = {
  400: 'The request is malformed or a field is invalid',
  401: 'The API key is missing, or malformed, unknown, revoked or expired; or, on the holdings routes, the session is unknown, ended or idle too long (one answer for all)',
  403: 'The key is of the other mode (TEST/LIVE) than the program',
  404: 'No such program, grant or route for this key; or, on the recipient routes, a link that is unknown, used or past its offer (one answer for all)',
  405: 'The path exists, but not with this method (HEAD and OPTIONS included); `Allow` lists its methods',
  410: 'A holdings sign-in link that is unknown, used or expired (one answer for all)',
  409: "The program refuses the grant, a concurrent request holds it, or the grant's state does not allow the change",
  413: 'The body is larger than the route takes (16 KiB for a grant)',
  415: 'The body is not JSON',
  422: 'The Idempotency-Key was used with a different request',
  429: 'Too many requests for now: the API key is over its rate limit (`rate_limited`, with the `RateLimit` fields), or, on the recipient routes, too many attempts with a link; `Retry-After` says when to try again',
  500: 'Unexpected error; nothing internal is revealed',
  503: 'DynamoDB is throttled or unavailable; retry with the same Idempotency-Key',
}

const MANAGE_STATUS_TEXT: Record<number, string> = {
  ...STATUS_TEXT,
  401: 'No access token, or an invalid or expired one (API Gateway answers `{"message":"Unauthorized"}` itself)',
  403: 'The role is too low for this route; a token without the scope (an ID token) is API Gateway\'s `{"message":"Forbidden"}`',
  404: 'No such issuer, program, grant, member, webhook endpoint or message in this issuer',
  409: "The item's state does not allow the change, a limit is reached, or a concurrent change holds it",
  429: 'The offer was sent moments ago; `Retry-After` says when it can be sent again',
}

// Every code, for the management routes (behind sign-in): their own codes and the shared ones.
const allCodes = Object.keys(ERROR_CODES) as ErrorCode[]

const problemResponse = (status: number, manage = false) => {
  const here = (manage ? allCodes : codes).filter((code) => ERROR_CODES[code] === status)
  return {
    description: `${(manage ? MANAGE_STATUS_TEXT : STATUS_TEXT)[status]}. Codes: ${here.map((c) => `\`${c}\``).join(', ')}.`,
    headers: {
      ...REQUEST_ID,
      ...(status === 405
        ? {
            Allow: {
              description: 'The methods the path has, comma-separated (RFC 9110).',
              required: true,
              schema: { type: 'string', example: 'POST' },
            },
          }
        : {}),
      ...(status === 503 || status === 429
        ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } }
        : {}),
      // Every integrator answer carries the RateLimit fields; the recipient routes' do not.
      ...(manage ? {} : RATE_LIMIT_HEADERS),
      ...(here.includes('request_conflict')
        ? {
            'Retry-After': {
              description: 'Seconds to wait before retrying; sent with request_conflict only.',
              schema: { type: 'string', pattern: '^[0-9]+$' },
            },
          }
        : {}),
    },
    content: {
      // API Gateway's JWT authorizer answers before any function: no or a bad token is 401, a
      // token without the scope (an ID token) 403, in its own JSON.
      ...(manage && (status === 401 || status === 403)
        ? {
            'application/json': {
              schema: { $ref: '#/components/schemas/GatewayMessage' },
              example: { message: status === 401 ? 'Unauthorized' : 'Forbidden' },
            },
          }
        : {}),
      'application/problem+json': {
        schema: { $ref: `#/components/schemas/${manage ? 'ManageProblem' : 'Problem'}` },
        example: {
          type: problemType(here[0] as string),
          title: 'Program pool exhausted',
          status,
          detail: 'Human-readable explanation.',
          code: here[0],
          requestId: '0f6c2f8e-1f0b-4a53-9d5c-8b1c1f4c2a10',
        },
      },
    },
  }
}

/** The problem's properties with every code (the management API answers all of them). */
const manageProblemProperties = () => {
  const props = (
    jsonSchema(problemSchemaOf(allCodes), 'output') as { properties: Record<string, unknown> }
  ).properties
  return props
}

/** API Gateway's own 401/403 body and the management problem, with every code. */
export const MANAGE_PROBLEM_SCHEMAS: Record<string, Json> = {
  GatewayMessage: {
    type: 'object',
    description: "API Gateway's own answer (no x-request-id; its apigw-requestid header).",
    properties: { message: { type: 'string' } },
    required: ['message'],
  },
  ManageProblem: {
    ...jsonSchema(ProblemSchema, 'output'),
    properties: manageProblemProperties(),
  },
}

/** components/responses: Problem<status> for the integrator routes, ManageProblem<status>. */
export const problemResponses = () => ({
  ...Object.fromEntries(
    [...new Set(codes.map((code) => ERROR_CODES[code]))].map((status) => [
      `Problem${status}`,
      problemResponse(status),
    ]),
  ),
  ...Object.fromEntries(
    // The statuses the management routes above answer with (405 is not theirs; 422: a
    // batch's Idempotency-Key reused with another body).
    [400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503].map((status) => [
      `ManageProblem${status}`,
      problemResponse(status, true),
    ]),
  ),
})
