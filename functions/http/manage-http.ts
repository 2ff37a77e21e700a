import { knownParameters } from '../domain/page-query'
import { json } from './http-handler'

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
