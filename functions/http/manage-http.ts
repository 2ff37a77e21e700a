import { ValidationFailed } from '../domain/errors'
import { json } from './http-handler'

/**
 * The query string's parameters; one the route does not know is refused and named, as an unknown
 * body field is (a typo such as `?mdoe=TEST` never passes silently as "no filter").
 */
export const queryOf = (
  event: { queryStringParameters?: Record<string, string | undefined> },
  known: readonly string[],
): Record<string, string | undefined> => {
  const query = event.queryStringParameters ?? {}
  const unknown = Object.keys(query).filter((name) => !known.includes(name))
  if (unknown.length > 0) {
    throw new ValidationFailed(
      unknown.map((name) => ({
        field: name,
        message: `unknown query parameter ${JSON.stringify(name)}`,
      })),
    )
  }
  return query
}

/** Management answers are about one signed-in person: no shared cache may keep them. */
export const manageJson = (
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
) => json(statusCode, body, { 'cache-control': 'no-store', ...headers })
