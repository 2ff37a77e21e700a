import type { Logger } from '@aws-lambda-powertools/logger'
import type { MiddlewareObj } from '@middy/core'
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda'
import { MalformedJson, PayloadTooLarge, UnsupportedMediaType } from './errors'
import { problemResponse } from './problem'

export type JsonEvent = Omit<APIGatewayProxyEventV2, 'body'> & { body: unknown }
type Result = APIGatewayProxyStructuredResultV2

const JSON_CONTENT_TYPE =
  /^application\/(?:[\w.+-]+\+)?json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i

export const requestIdOf = (event: { requestContext?: { requestId?: string } }, context: Context) =>
  event.requestContext?.requestId ?? context.awsRequestId

/**
 * Parses a JSON body with the errors the contract promises: 415 for another media type, 413 past
 * the size cap, 400 for malformed JSON. (@middy/http-json-body-parser answers malformed JSON with
 * 415/422 and has no size cap, hence this small replacement.)
 */
export const jsonBody = ({
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
    let parsed: unknown
    try {
      // fatal: invalid UTF-8 is malformed input, not something to repair silently.
      parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes))
    } catch {
      throw new MalformedJson('The request body is not valid JSON.')
    }
    ;(event as unknown as JsonEvent).body = parsed
  },
})

// One line per request; deliberately without headers or body, which carry the API key.
const logRequest = (
  logger: Logger,
  event: APIGatewayProxyEventV2,
  status: number | undefined,
  code?: string,
) =>
  logger.info('request', {
    method: event.requestContext?.http?.method,
    route: event.routeKey,
    status,
    ...(code === undefined ? {} : { code }),
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
    logger.appendKeys({ requestId: requestIdOf(request.event, request.context) })
  },
  after: async (request) => {
    const response = request.response ?? { statusCode: 204 }
    response.headers = {
      ...response.headers,
      'x-request-id': requestIdOf(request.event, request.context),
    }
    request.response = response
    logRequest(logger, request.event, response.statusCode)
  },
  onError: async (request) => {
    const requestId = requestIdOf(request.event, request.context)
    const { response, problem, known } = problemResponse(request.error, requestId)
    if (!known) {
      logger.error('unhandled error', request.error as Error)
    }
    response.headers = { ...response.headers, 'x-request-id': requestId }
    request.response = response
    logRequest(logger, request.event, problem.status, problem.code)
  },
})
