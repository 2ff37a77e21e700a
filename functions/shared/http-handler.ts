import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware'
import middy from '@middy/core'
import httpHeaderNormalizer from '@middy/http-header-normalizer'
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda'
import { logger } from './logger'
import { type JsonEvent, jsonBody, problemDetails } from './middleware'

type Result = APIGatewayProxyStructuredResultV2

/**
 * The middleware chain every route shares, in the order middy's docs give: header normalizer
 * first, error handler last.
 */
export const httpHandler = <E extends APIGatewayProxyEventV2 | JsonEvent>(
  handle: (event: E, context: Context) => Promise<Result>,
  options: { jsonBodyMaxBytes?: number } = {},
) => {
  const chain = middy<APIGatewayProxyEventV2, Result>()
    .use(httpHeaderNormalizer())
    .use(injectLambdaContext(logger, { resetKeys: true }))
  if (options.jsonBodyMaxBytes !== undefined) {
    chain.use(jsonBody({ maxBytes: options.jsonBodyMaxBytes }))
  }
  return chain
    .use(problemDetails({ logger }))
    .handler((event, context) => handle(event as E, context))
}

export const json = (
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): Result => ({
  statusCode,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
})
