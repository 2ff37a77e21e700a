import { readFileSync } from 'node:fs'
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import { SignJWT } from 'jose'
import { matchRoute, type Route, USER_SCOPE } from '../../functions/routes'
import type { LambdaHandler, RouteHandlers } from '../../local/http-server'
import { INVALID_AUDIENCE_CHALLENGE } from '../../local/jwt-authorizer'
import { type Call, newIssuer, postGrant, request, startApi } from '../support/api'
import {
  accessClaims,
  accessTokenFor,
  bearer,
  EMULATOR_KID,
  emulatorSignedToken,
  expiredToken,
  forgedToken,
  identity,
  idTokenFor,
  otherClientTokenFor,
  otherPoolToken,
  type Person,
  signUpPerson,
  unsignedToken,
} from '../support/identity'

/**
 * The local server's JWT authorizer, as API Gateway's HTTP API authorizer behaves, through real
 * HTTP with real tokens from the run's Cognito emulator. The routes here are a test's own `user`
 * route with a fake handler, so nothing depends on which management routes exist.
 */
const WHOAMI: Route = {
  id: 'TestWhoAmI',
  routeKey: 'GET /test/whoami',
  entry: 'test/none.ts',
  auth: 'user',
  role: 'signed-in',
  access: {},
}

const calls: APIGatewayProxyEventV2WithJWTAuthorizer[] = []
const whoami: LambdaHandler = async (event) => {
  calls.push(event as unknown as APIGatewayProxyEventV2WithJWTAuthorizer)
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' }
}
const refusals: { status: number; reason: string }[] = []
let clock = Date.now

let api: Awaited<ReturnType<typeof startApi>>
let person: Person
beforeAll(async () => {
  api = await startApi({
    handlers: new Map([[WHOAMI.routeKey, whoami]]) as RouteHandlers,
    options: {
      now: () => clock(),
      matchRoute: (method, rawPath) =>
        `${method} ${rawPath}` === WHOAMI.routeKey
          ? { route: WHOAMI, pathParameters: {} }
          : matchRoute(method, rawPath),
      onAuthorizerRefusal: ({ status, reason }) => refusals.push({ status, reason }),
    },
  })
  person = await signUpPerson()
})
afterAll(() => api.close())
beforeEach(() => {
  calls.length = 0
  refusals.length = 0
  clock = Date.now
})

const whoAmI = (headers: Record<string, string> = {}) =>
  request(api.baseUrl, 'GET', '/test/whoami', { headers })

/** Refused by the gateway: its own JSON, no function called, and refused for the reason given. */
const expectRefused = (call: Call, status: 401 | 403, reason: RegExp) => {
  expect({ status: call.status, text: call.text }).toEqual({
    status,
    text: JSON.stringify({ message: status === 401 ? 'Unauthorized' : 'Forbidden' }),
  })
  expect(call.headers.get('content-type')).toBe('application/json')
  expect(call.headers.get('apigw-requestid')).toEqual(expect.any(String))
  expect(call.headers.get('x-request-id')).toBeNull()
  expect(calls).toHaveLength(0)
  expect(refusals).toEqual([{ status, reason: expect.stringMatching(reason) }])
}

describe('the JWT authorizer of user routes', () => {
  it('lets a valid access token through, with the claims and scopes where API Gateway puts them', async () => {
    const token = await accessTokenFor(person)
    const call = await whoAmI(bearer(token))
    expect(call.status).toBe(200)
    expect(calls).toHaveLength(1)
    const { jwt } = (calls[0] as APIGatewayProxyEventV2WithJWTAuthorizer).requestContext.authorizer
    const id = identity()
    expect(jwt.claims).toMatchObject({
      sub: person.sub,
      iss: id.issuer,
      client_id: id.clientId,
      token_use: 'access',
      scope: USER_SCOPE,
      exp: expect.stringMatching(/^\d+$/),
      iat: expect.stringMatching(/^\d+$/),
    })
    // As API Gateway passes them: every value a string.
    for (const value of Object.values(jwt.claims)) expect(typeof value).toBe('string')
    expect(jwt.scopes).toEqual([USER_SCOPE])
    expect(refusals).toEqual([])
  })

  it('takes the Bearer scheme in any case, and the token alone, as API Gateway does', async () => {
    const token = await accessTokenFor(person)
    for (const authorization of [`bearer ${token}`, `BEARER   ${token}`, token]) {
      expect((await whoAmI({ authorization })).status).toBe(200)
    }
    expect(calls).toHaveLength(3)
  })

  it('refuses a request without a token, or with another scheme or an empty one', async () => {
    expectRefused(await whoAmI(), 401, /^no token$/)
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer a b']) {
      refusals.length = 0
      expectRefused(await whoAmI({ authorization }), 401, /no bearer token|no token/)
    }
  })

  it('refuses a malformed JWT', async () => {
    for (const token of ['abc', 'abc.def', 'a.b.c', `${unsignedToken()}x.y`]) {
      refusals.length = 0
      expectRefused(await whoAmI(bearer(token)), 401, /not a JWT|not valid|signing method/)
    }
  })

  it('refuses a forged signature (a key of our own under the emulator kid)', async () => {
    expectRefused(
      await whoAmI(bearer(await forgedToken({ sub: person.sub }))),
      401,
      /signature is not valid/,
    )
  })

  it('refuses alg none, and HS256 made with the public key (algorithm confusion)', async () => {
    expectRefused(await whoAmI(bearer(unsignedToken())), 401, /signing method none/)
    refusals.length = 0
    const publicPem = (
      JSON.parse(
        readFileSync(require.resolve('cognito-local/lib/keys/cognitoLocal.public.json'), 'utf8'),
      ) as { pem: string }
    ).pem
    const confused = await new SignJWT(accessClaims(person))
      .setProtectedHeader({ alg: 'HS256', kid: EMULATOR_KID })
      .sign(new TextEncoder().encode(publicPem))
    expectRefused(await whoAmI(bearer(confused)), 401, /signing method HS256/)
  })

  it('refuses a kid the pool does not publish', async () => {
    const token = await emulatorSignedToken(accessClaims(person))
    const [header, payload, signature] = token.split('.')
    const otherKid = Buffer.from(
      JSON.stringify({ alg: 'RS256', kid: 'not-a-key-of-the-pool', typ: 'JWT' }),
    ).toString('base64url')
    expect(header).not.toBe(otherKid)
    expectRefused(
      await whoAmI(bearer(`${otherKid}.${payload}.${signature}`)),
      401,
      /no key of the issuer matches the kid/,
    )
  })

  it('refuses an expired token (signed with the emulator key, only exp in the past)', async () => {
    expectRefused(await whoAmI(bearer(await expiredToken(person))), 401, /expired/)
  })

  it('refuses a real token once the clock is past its exp, and takes it just before', async () => {
    const token = await accessTokenFor(person)
    const exp = Number(
      JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()).exp,
    )
    clock = () => exp * 1000 - 1_000
    expect((await whoAmI(bearer(token))).status).toBe(200)
    calls.length = 0
    clock = () => exp * 1000
    expectRefused(await whoAmI(bearer(token)), 401, /expired/)
  })

  it('refuses a token not valid yet (nbf) or issued in the future (iat)', async () => {
    const later = Math.floor(Date.now() / 1000) + 600
    expectRefused(
      await whoAmI(bearer(await emulatorSignedToken({ ...accessClaims(person), nbf: later }))),
      401,
      /nbf/,
    )
    refusals.length = 0
    expectRefused(
      await whoAmI(bearer(await emulatorSignedToken({ ...accessClaims(person), iat: later }))),
      401,
      /iat/,
    )
  })

  it('refuses a real token of another app client of the pool, with the documented challenge', async () => {
    const call = await whoAmI(bearer(await otherClientTokenFor(person)))
    expectRefused(call, 401, /valid audience/)
    expect(call.headers.get('www-authenticate')).toBe(INVALID_AUDIENCE_CHALLENGE)
  })

  it('evaluates aud when a token has one, client_id only when it has none', async () => {
    const claims = { ...accessClaims(person), aud: identity().otherClientId }
    expectRefused(await whoAmI(bearer(await emulatorSignedToken(claims))), 401, /valid audience/)
    refusals.length = 0
    const { client_id: _dropped, ...noClient } = accessClaims(person)
    const withAud = { ...noClient, aud: identity().clientId }
    expect((await whoAmI(bearer(await emulatorSignedToken(withAud)))).status).toBe(200)
  })

  it('refuses a real token of another pool of the emulator (same key, other issuer)', async () => {
    const call = await whoAmI(bearer(await otherPoolToken()))
    expectRefused(call, 401, /valid issuer/)
    expect(call.headers.get('www-authenticate')).toBeNull()
  })

  it("answers 403 Forbidden to a token without the route's scope: an ID token, or an access token stripped of it", async () => {
    expectRefused(await whoAmI(bearer(await idTokenFor(person))), 403, /scope/)
    refusals.length = 0
    const { scope: _dropped, ...noScope } = accessClaims(person)
    expectRefused(await whoAmI(bearer(await emulatorSignedToken(noScope))), 403, /scope/)
    refusals.length = 0
    const otherScope = { ...accessClaims(person), scope: 'openid profile' }
    expectRefused(await whoAmI(bearer(await emulatorSignedToken(otherScope))), 403, /scope/)
  })

  it('refuses a token that is not an access token even with the scope (stricter than the gateway)', async () => {
    const claims = { ...accessClaims(person), token_use: 'id' }
    expectRefused(await whoAmI(bearer(await emulatorSignedToken(claims))), 401, /access token/)
  })

  it('passes an emulator-signed token with valid claims: each refusal above is its one wrong claim', async () => {
    expect((await whoAmI(bearer(await emulatorSignedToken(accessClaims(person))))).status).toBe(200)
  })
})

describe('routes whose auth is function', () => {
  it('ignore Authorization entirely: the grant API works with any or no bearer token', async () => {
    const issuer = await newIssuer()
    for (const authorization of [
      'Bearer not-a-token',
      `Bearer ${await forgedToken()}`,
      `Bearer ${await accessTokenFor(person)}`,
    ]) {
      const call = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST, undefined, {
        authorization,
      })
      expect(call.status).toBe(201)
    }
    const missingKey = await postGrant(api.baseUrl, issuer.programs.TEST, undefined, undefined, {
      authorization: `Bearer ${await accessTokenFor(person)}`,
    })
    expect(missingKey.status).toBe(401)
    expect(missingKey.body.code).toBe('missing_api_key')
    expect(refusals).toEqual([])
  })
})
