import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware'
import middy, { type MiddlewareObj } from '@middy/core'
import httpHeaderNormalizer from '@middy/http-header-normalizer'
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda'
import { BUDGET, type Deadline, startDeadline } from '../runtime/deadline'
import { logger } from '../runtime/logger'
import { assignRequestId, type JsonEvent, jsonBody, problemDetails } from './middleware'

type Result = APIGatewayProxyStructuredResultV2

/**
 * The middleware chain every route shares, in the order middy's docs give: header normalizer
 * first, error handler last. Each request gets its own deadline (deadline.ts), handed to the route
 * so every DynamoDB call it makes is abandoned in time; middy's early timeout stays as the last net.
 */
export const httpHandler = <E extends APIGatewayProxyEventV2 | JsonEvent>(
  handle: (event: E, deadline: Deadline, context: Context) => Promise<Result>,
  options: {
    jsonBodyMaxBytes?: number
    /** The route's own middlewares, before the body is parsed (http/integrator-request.ts). */
    use?: MiddlewareObj<APIGatewayProxyEventV2, Result>[]
  } = {},
) => {
  const chain = middy<APIGatewayProxyEventV2, Result>({ timeoutEarlyInMillis: BUDGET.lastNetMs })
    .use(httpHeaderNormalizer())
    .use(assignRequestId())
    .use(injectLambdaContext(logger, { resetKeys: true }))
  for (const middleware of options.use ?? []) chain.use(middleware)
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
