import { GRANT_API_ROUTES } from './routes/grant-api'
import { MANAGE_GRANT_LIFE_ROUTES } from './routes/manage-grant-life'
import { MANAGE_GRANT_ROUTES } from './routes/manage-grants'
import { MANAGE_MEMBER_ROUTES } from './routes/manage-members'
import { MANAGE_PROGRAM_ROUTES } from './routes/manage-programs'
import { MANAGE_REQUEST_ROUTES } from './routes/manage-requests'
import { MANAGE_WEBHOOK_ROUTES } from './routes/manage-webhooks'
import { RECIPIENT_ROUTES } from './routes/recipient'
import { functionRoute, type Route } from './routes/route'

export type { Route } from './routes/route'

/**
 * The API's routes, the one list the CDK stack (one function per route, its authorizer, its IAM)
 * and the local server (routing, the authorizer's checks) both read, assembled from its groups
 * (functions/routes/). Pure data, so importing it loads no handler code.
 */
export const ROUTES = [
  ...GRANT_API_ROUTES,
  ...RECIPIENT_ROUTES,
  functionRoute('NotFound', '$default', 'not-found', { access: {} }),
  ...MANAGE_PROGRAM_ROUTES,
  ...MANAGE_MEMBER_ROUTES,
  ...MANAGE_GRANT_ROUTES,
  ...MANAGE_GRANT_LIFE_ROUTES,
  ...MANAGE_WEBHOOK_ROUTES,
  ...MANAGE_REQUEST_ROUTES,
] as const satisfies readonly Route[]

export type RouteId = (typeof ROUTES)[number]['id']

/**
 * The scope every `user` route requires. Cognito puts it in access tokens and not in ID tokens,
 * and API Gateway's JWT authorizer does not check `token_use`: requiring the scope is what keeps
 * ID tokens out.
 */
export const USER_SCOPE = 'aws.cognito.signin.user.admin'

/** The route with this id (pure data, for handlers that read their own role). */
export const routeById = (id: string): Route => {
  const route = (ROUTES as readonly Route[]).find((r) => r.id === id)
  if (!route) throw new Error(`No route ${id} in functions/routes.ts`)
  return route
}

// In a module of its own, so the grant function's bundle does not carry the route list.
export { FUNCTION_TIMEOUT_SECONDS } from './function-timeout'

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Each route with a path, compiled once: `{name}` is exactly one non-empty segment. */
const COMPILED = ROUTES.filter((route) => route.routeKey !== '$default').map((route) => {
  const [method = '', path = ''] = route.routeKey.split(' ')
  const params: string[] = []
  const source = path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment)
      if (!param) return escapeRegExp(segment)
      params.push(param[1] as string)
      return '([^/]+)'
    })
    .join('/')
  return { route, method, pattern: new RegExp(`^${source}$`), params }
})

const decodeSegment = (value: string) => {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/**
 * The route API Gateway picks for a request, or undefined when only `$default` takes it. `rawPath`
 * is the path exactly as sent (no query string, nothing resolved or normalised): `//host/...` or
 * `/a/../b` never match a route. Path parameters arrive URL-decoded, as API Gateway passes them.
 */
export const matchRoute = (method: string, rawPath: string) => {
  for (const compiled of COMPILED) {
    if (compiled.method !== method) continue
    const match = compiled.pattern.exec(rawPath)
    if (!match) continue
    const pathParameters = Object.fromEntries(
      compiled.params.map((name, i) => [name, decodeSegment(match[i + 1] as string)]),
    )
    return { route: compiled.route, pathParameters }
  }
  return undefined
}

/**
 * The methods that have a route for this raw path, sorted (`[]` for an unknown path): the `Allow`
 * header of a 405. API Gateway has no HEAD or OPTIONS of its own without CORS, so they are only
 * listed when a route declares them.
 */
export const methodsForPath = (rawPath: string): string[] =>
  [...new Set(COMPILED.filter((c) => c.pattern.test(rawPath)).map((c) => c.method))].sort()
