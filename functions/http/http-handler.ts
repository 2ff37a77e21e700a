import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware'
import middy from '@middy/core'
import httpHeaderNormalizer from '@middy/http-header-normalizer'
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda'
import { BUDGET, type Deadline, startDeadline } from '../runtime/deadline'
import { logger } from '../runtime/logger'
import { type JsonEvent, jsonBody, problemDetails } from './middleware'

type Result = APIGatewayProxyStructuredResultV2

/**
 * The middleware chain every route shares, in the order middy's docs give: header normalizer
 * first, error handler last. Each request gets its own deadline (deadline.ts), handed to the route
 * so every DynamoDB call it makes is abandoned in time; middy's early timeout stays as the last net.
 */
export const httpHandler = <E extends APIGatewayProxyEventV2 | JsonEvent>(
  handle: (event: E, deadline: Deadline, context: Context) => Promise<Result>,
  options: { jsonBodyMaxBytes?: number } = {},
) => {
  const chain = middy<APIGatewayProxyEventV2, Result>({ timeoutEarlyInMillis: BUDGET.lastNetMs })
    .use(httpHeaderNormalizer())
    .use(injectLambdaContext(logger, { resetKeys: true }))
  if (options.jsonBodyMaxBytes !== undefined) {
    chain.use(jsonBody({ maxBytes: options.jsonBodyMaxBytes }))
  }
  return chain.use(problemDetails({ logger })).handler(async (event, context) => {
    const deadline = startDeadline(context)
    try {
      return await handle(event as E, deadline, context)
    } finally {
      deadline.dispose()
    }
  })
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
