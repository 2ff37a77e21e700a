import type { Logger } from '@aws-lambda-powertools/logger'
import type { MiddlewareObj } from '@middy/core'
import httpJsonBodyParser from '@middy/http-json-body-parser'
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda'
import { newRequestId } from '../domain/request-id'
import { MalformedJson, PayloadTooLarge, UnsupportedMediaType } from './request-errors'

export type JsonEvent = Omit<APIGatewayProxyEventV2, 'body'> & { body: unknown }
type Result = APIGatewayProxyStructuredResultV2

const JSON_CONTENT_TYPE =
  /^application\/(?:[\w.+-]+\+)?json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i

/** Each request's id (domain/request-id.ts), made by `assignRequestId`, by its event. */
const requestIds = new WeakMap<object, string>()

/**
 * The request's id: the one `assignRequestId` made (the `Request-Id` header, a problem's
 * `requestId`, the request log, an audit entry's), else API Gateway's or Lambda's.
 */
export const requestIdOf = (event: { requestContext?: { requestId?: string } }, context: Context) =>
  requestIds.get(event) ?? event.requestContext?.requestId ?? context.awsRequestId

/** First in the chain: a new request id, from the time API Gateway received the request. */
export const assignRequestId = (): MiddlewareObj<APIGatewayProxyEventV2, Result> => ({
  before: async ({ event }) => {
    requestIds.set(event, newRequestId(event.requestContext?.timeEpoch ?? Date.now()))
  },
})

/**
 * What the contract promises about a JSON body and @middy/http-json-body-parser does not check,
 * enforced before it runs: 415 for another media type (its own pattern is case-sensitive and
 * refuses `application/json ; charset=utf-8`), 413 past the size cap (it has none), 400 for an
 * empty body (it answers 415) and for bytes that are not UTF-8 (it decodes base64 lossily, so
 * `R\xffferral` would be stored as `R\uFFFDferral`). It hands the package the decoded text, so
 * whatever the package then refuses can only be malformed JSON (problem.ts maps it to 400).
 */
export const jsonBodyGuard = ({
  maxBytes,
}: {
  maxBytes: number
}): MiddlewareObj<APIGatewayProxyEventV2, Result> => ({
  before: async (request) => {
    const { event } = request
    const contentType = event.headers?.['content-type']
    if (contentType === undefined || !JSON_CONTENT_TYPE.test(contentType.trim())) {
      throw new UnsupportedMediaType()
    }
    const raw = event.body ?? ''
    const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8')
    if (bytes.length > maxBytes) throw new PayloadTooLarge(maxBytes)
    if (bytes.length === 0)
      throw new MalformedJson('The request body is empty; send a JSON object.')
    try {
      // fatal: invalid UTF-8 is malformed input, not something to repair silently. ignoreBOM keeps
      // a BOM in the text, where JSON.parse refuses it.
      event.body = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
    } catch (error) {
      throw new MalformedJson('The request body is not valid UTF-8.', { cause: error })
    }
    event.isBase64Encoded = false
  },
})

/** The design card's body parser behind its guard: the body arrives as the parsed JSON value. */
export const jsonBody = ({ maxBytes }: { maxBytes: number }) => [
  jsonBodyGuard({ maxBytes }),
  // The guard has checked the content type, with the contract's rules. 6.4.x reads
  // `disableContentTypeCheck` (index.js) but its index.d.ts does not declare it.
  httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<
    typeof httpJsonBodyParser
  >[0]) as MiddlewareObj<APIGatewayProxyEventV2, Result>,
]

/**
 * Requests whose one log line is their request log entry (http/integrator-request.ts marks them):
 * their route's `request` line would say the same again, at the price of the bytes.
 */
export const loggedAsEntry = new WeakSet<APIGatewayProxyEventV2>()

// One line per request; deliberately without headers or body, which carry the API key.
const logRequest = (
  logger: Logger,
  event: APIGatewayProxyEventV2,
  status: number | undefined,
  code?: string,
) =>
  loggedAsEntry.has(event) ||
  logger.info('request', {
    method: event.requestContext?.http?.method,
    route: event.routeKey,
    status,
    ...(code === undefined ? {} : { code }),
  })

/** `Request-Id` (issue 33) and `x-request-id`, the same id, which older clients read. */
const requestIdHeaders = (requestId: string) => ({
  'request-id': requestId,
  'x-request-id': requestId,
})

/**
 * Last in the chain: every error becomes an RFC 9457 problem response, and every response (success
 * or error) carries the request id. Unknown errors are logged in full and answered generically.
 */
export const problemDetails = ({
  logger,
}: {
  logger: Logger
}): MiddlewareObj<APIGatewayProxyEventV2, Result> => ({
  before: async (request) => {
    logger.appendKeys({
      requestId: requestIdOf(request.event, request.context),
      // API Gateway's own id, as its access log has it.
      gatewayRequestId: request.event.requestContext?.requestId,
    })
  },
  after: async (request) => {
    const response = request.response ?? { statusCode: 204 }
    response.headers = {
      ...response.headers,
      ...requestIdHeaders(requestIdOf(request.event, request.context)),
    }
    request.response = response
    logRequest(logger, request.event, response.statusCode)
  },
  onError: async (request) => {
    const requestId = requestIdOf(request.event, request.context)
    // Loaded on the first error: the catalogue and its mappings (and the zod error class they
    // know) are no part of a successful request, so they stay out of a cold start's import.
    const { problemResponse } = await import('./problem')
    const { response, problem, known } = problemResponse(request.error, requestId)
    if (!known) {
      logger.error('unhandled error', request.error as Error)
    } else if (problem.status >= 500) {
      // A 503 says in the log what caused it (a timeout, a throttle, the deadline); never the caller.
      logger.warn('answered with a server error', {
        code: problem.code,
        cause: (request.error as Error).cause,
      })
    }
    response.headers = { ...response.headers, ...requestIdHeaders(requestId) }
    request.response = response
    logRequest(logger, request.event, problem.status, problem.code)
  },
})
