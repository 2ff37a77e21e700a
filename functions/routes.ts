import type { Role } from './model/people'
import type { TableKey } from './shared/table-schema'

/**
 * The API's routes, the one list the CDK stack (one function per route, its authorizer, its IAM)
 * and the local server (routing, the authorizer's checks) both read. Pure data, so importing it
 * loads no handler code.
 */
export type Route = {
  /** Stable id: the function's construct id and the local server's handler name. */
  id: string
  /** API Gateway HTTP API route key. */
  routeKey: string
  /** Handler module, relative to the project root. */
  entry: string
  /**
   * Who may call it. `function`: nothing at the gateway; the function checks the caller itself
   * (the grant API's `x-api-key`, checked inside the grant transaction). `user`: the gateway's JWT
   * authorizer first (a Cognito access token: signature, issuer, client, expiry, and the scope
   * USER_SCOPE), then the function checks the person's role in the issuer on every request.
   */
  auth: 'function' | 'user'
  /**
   * For `user` routes: the lowest role in the path's issuer that may call it, or `signed-in` for
   * routes about the person themself (`GET /manage/me`).
   */
  role?: Role | 'signed-in'
  /**
   * Exactly the DynamoDB actions the function needs, hot path and error path, per table: the
   * stack grants these and nothing else. TransactWriteItems is authorised per item through these
   * actions; no Scan, no Query, no wildcard.
   */
  access: Partial<Record<TableKey, readonly string[]>>
}

export const ROUTES = [
  {
    id: 'GrantTokens',
    routeKey: 'POST /programs/{programId}/grant-tokens',
    entry: 'functions/grant-tokens/grant-tokens.handler.ts',
    auth: 'function',
    access: {
      apiKeys: ['dynamodb:GetItem', 'dynamodb:ConditionCheckItem'],
      programs: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
      grants: ['dynamodb:PutItem', 'dynamodb:GetItem'],
    },
  },
  {
    id: 'GetGrant',
    routeKey: 'GET /programs/{programId}/grants/{grantId}',
    entry: 'functions/get-grant/get-grant.handler.ts',
    auth: 'function',
    access: {
      apiKeys: ['dynamodb:BatchGetItem'],
      grants: ['dynamodb:BatchGetItem'],
    },
  },
  {
    id: 'NotFound',
    routeKey: '$default',
    entry: 'functions/not-found/not-found.handler.ts',
    auth: 'function',
    access: {},
  },
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

/**
 * Every function's timeout. The stack sets it on each function, the local adapter's context counts
 * down from it as Lambda's does, and each request's deadline is what remains of it less a margin.
 */
export const FUNCTION_TIMEOUT_SECONDS = 10

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
