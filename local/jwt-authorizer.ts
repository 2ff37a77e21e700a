import { createRemoteJWKSet, decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from 'jose'

/**
 * What API Gateway's HTTP API JWT authorizer does before a `user` route's function is called,
 * for the local server (local/http-server.ts) and its tests. In AWS the gateway does this and no
 * function code runs it: this module is never bundled into a Lambda.
 *
 * The checks, in the gateway's order (API Gateway Developer Guide, "Control access to HTTP APIs
 * with JWT authorizers"):
 * 1. the token from `Authorization`: the token alone, or `Bearer <token>`;
 * 2. decoded; the algorithm RS256 (the gateway takes RSA only; Cognito signs RS256) and a `kid`;
 * 3. the signature, against the issuer's JWKS (fetched, then cached as the gateway does: 2 hours);
 * 4. `iss` equal to the issuer; `aud`, or `client_id` when there is no `aud`, one of the audience;
 *    `exp` after now, `nbf` and `iat` not after now;
 * 5. at least one of the route's scopes in `scope` (or `scp`). An ID token has none.
 * Then, stricter than the gateway (which does not look at it): `token_use` must be `access`.
 * Cognito never issues a token that passes 1-5 with another `token_use`, so nothing that works in
 * AWS is refused here.
 *
 * A refusal in 1-4 is `401 {"message":"Unauthorized"}`, one in 5 is `403 {"message":"Forbidden"}`:
 * what the gateway answers (the scope case as observed against real HTTP APIs; the guide only says
 * the request is denied). The only `www-authenticate` value AWS documents (Troubleshooting JWT
 * authorizers) is the audience one, so that one is sent as documented and the others send none
 * rather than invent wording. The reason, which the gateway logs as `$context.authorizer.error`, is
 * returned for the local server's log and for tests.
 */
export type JwtAuthorizerConfig = {
  /** Exactly the tokens' `iss`. */
  issuer: string
  /** App client ids: a token's `aud`, or its `client_id` when it has no `aud`, must be one. */
  audience: readonly string[]
  /** The issuer's keys (for the emulator: local/cognito-local.ts jwksUri, never its discovery document). */
  jwksUri: string
}

export type Authorization =
  | {
      ok: true
      /** The claims as API Gateway passes them: every value a string. */
      claims: Record<string, string>
      /** The token's scopes, or null when it has none. */
      scopes: string[] | null
    }
  | {
      ok: false
      status: 401 | 403
      /** Why, in words (the gateway's `$context.authorizer.error`). */
      reason: string
      /** The `www-authenticate` value, when API Gateway's is known. */
      wwwAuthenticate?: string
    }

/** The value API Gateway sends with a token of another audience (documented verbatim). */
export const INVALID_AUDIENCE_CHALLENGE =
  'Bearer scope="" error="invalid_token" error_description="the token does not have a valid audience"'

/** How long the gateway may cache an issuer's public keys. */
const JWKS_CACHE_MS = 2 * 60 * 60 * 1000

const unauthorized = (reason: string, wwwAuthenticate?: string): Authorization => ({
  ok: false,
  status: 401,
  reason,
  ...(wwwAuthenticate ? { wwwAuthenticate } : {}),
})

/**
 * A claim value as API Gateway renders it in `requestContext.authorizer.jwt.claims`: strings as
 * they are, numbers and booleans as text, arrays as `[a b]`, objects as JSON; nulls left out.
 */
const renderClaim = (value: unknown): string | undefined => {
  if (value === null || value === undefined) return undefined
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (Array.isArray(value)) return `[${value.map((v) => renderClaim(v) ?? '').join(' ')}]`
  return JSON.stringify(value)
}

const scopesOf = (payload: JWTPayload): string[] | null => {
  const raw = payload.scope ?? payload.scp
  if (typeof raw === 'string') return raw.split(' ').filter((s) => s !== '')
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string')
  return null
}

/** The token in an `Authorization` value, or undefined when there is none the gateway would take. */
const tokenIn = (header: string | undefined) => {
  const value = header?.trim() ?? ''
  if (value === '' || /^bearer$/i.test(value)) return undefined
  const bearer = /^bearer\s+(\S+)$/i.exec(value)
  if (bearer) return bearer[1]
  // The token alone (no scheme) is an identity source the gateway takes too; `Basic ...` is not.
  return /\s/.test(value) ? undefined : value
}

const describe = (error: unknown): string => {
  if (error instanceof errors.JWTExpired) return 'the token has expired'
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return 'the token does not have a valid issuer'
    if (error.claim === 'nbf') return 'the token is not valid yet (nbf)'
    return `the token's ${error.claim} claim is not valid (${error.reason})`
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the signature is not valid'
  if (error instanceof errors.JWKSNoMatchingKey) return 'no key of the issuer matches the kid'
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the signing algorithm is not allowed'
  if (error instanceof errors.JWKSTimeout) return "the issuer's keys could not be fetched in time"
  if (error instanceof errors.JOSEError) return `the token is not valid (${error.code})`
  return `the token could not be verified (${error instanceof Error ? error.message : String(error)})`
}

export const createJwtAuthorizer = (
  config: JwtAuthorizerConfig,
  options: { now?: () => number } = {},
) => {
  const now = options.now ?? Date.now
  const keys = createRemoteJWKSet(new URL(config.jwksUri), {
    cacheMaxAge: JWKS_CACHE_MS,
    timeoutDuration: 5_000,
  })

  /** Authorizes one request to a route that requires one of `requiredScopes`. */
  const authorize = async (
    authorization: string | undefined,
    requiredScopes: readonly string[],
  ): Promise<Authorization> => {
    const token = tokenIn(authorization)
    if (token === undefined) {
      return unauthorized(
        authorization ? 'the Authorization header holds no bearer token' : 'no token',
      )
    }
    let header: ReturnType<typeof decodeProtectedHeader>
    try {
      header = decodeProtectedHeader(token)
    } catch {
      return unauthorized('the token is not a JWT')
    }
    if (header.alg !== 'RS256') {
      return unauthorized(`the signing method ${String(header.alg)} is not allowed (RS256 only)`)
    }
    if (typeof header.kid !== 'string') return unauthorized('the token has no kid')

    const at = now()
    let payload: JWTPayload
    try {
      ;({ payload } = await jwtVerify(token, keys, {
        algorithms: ['RS256'],
        issuer: config.issuer,
        currentDate: new Date(at),
      }))
    } catch (error) {
      return unauthorized(describe(error))
    }
    if (typeof payload.exp !== 'number') return unauthorized('the token has no exp')
    if (typeof payload.iat === 'number' && payload.iat > Math.floor(at / 1000)) {
      return unauthorized('the token was issued in the future (iat)')
    }
    // `aud` when the token has one (ID tokens), else `client_id` (Cognito's access tokens).
    const audiences =
      payload.aud !== undefined
        ? [payload.aud].flat()
        : typeof payload.client_id === 'string'
          ? [payload.client_id]
          : []
    if (!audiences.some((a) => config.audience.includes(a))) {
      return unauthorized('the token does not have a valid audience', INVALID_AUDIENCE_CHALLENGE)
    }
    const scopes = scopesOf(payload)
    if (requiredScopes.length > 0 && !requiredScopes.some((s) => scopes?.includes(s))) {
      return {
        ok: false,
        status: 403,
        reason: `the token has none of the route's scopes (${requiredScopes.join(' ')})`,
      }
    }
    if (payload.token_use !== 'access') {
      return unauthorized(
        `the token is not an access token (token_use ${String(payload.token_use)})`,
      )
    }
    const claims: Record<string, string> = {}
    for (const [name, value] of Object.entries(payload)) {
      const rendered = renderClaim(value)
      if (rendered !== undefined) claims[name] = rendered
    }
    return { ok: true, claims, scopes }
  }

  return { authorize }
}

export type JwtAuthorizer = ReturnType<typeof createJwtAuthorizer>
