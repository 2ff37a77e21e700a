import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda'
import { knownParameters } from '../domain/page-query'
import { json } from './http-handler'
import type { ManageRequest } from './manage-handler'

/** The query string's parameters, each one the route knows (domain/page-query.ts). */
export const queryOf = (
  event: { queryStringParameters?: Record<string, string | undefined> },
  known: readonly string[],
): Record<string, string | undefined> => knownParameters(event.queryStringParameters, known)

/** Management answers are about one signed-in person: no shared cache may keep them. */
export const manageJson = (
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
) => json(statusCode, body, { 'cache-control': 'no-store', ...headers })

/**
 * A management route's logic over what its route family prepares for each request (the admin use
 * cases, a member's path and the member use cases, ...): adminRoute, memberRoute.
 */
export type ManageLogic<E, Prepared> = (
  request: ManageRequest<E>,
  prepared: Prepared,
) => Promise<APIGatewayProxyStructuredResultV2>

/** The options of a management route's handler (manageHandler). */
export type ManageRouteOptions = { jsonBodyMaxBytes?: number }
