import { request as httpRequest } from 'node:http'
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda'
import { newId } from '../../functions/domain/ids'
import { REQUEST_ID_PATTERN } from '../../functions/domain/request-id'
import { handler as notFound } from '../../functions/handlers/not-found.handler'
import { ERROR_CODES, problemResponse } from '../../functions/http/problem'
import { MethodNotAllowed } from '../../functions/http/request-errors'
import { methodsForPath, ROUTES } from '../../functions/routes'
import {
  expectNothingWritten,
  expectProblem,
  grantBody,
  type Issuer,
  newIssuer,
  postGrant,
  request,
} from '../support/api'
import { useApi } from '../support/api-harness'

/**
 * A path the API has, asked with a method it has no route for, is 405 method_not_allowed with
 * `Allow`, answered by the NotFound function (API Gateway's `$default` route), so the deployed
 * API and `npm start` answer alike. Unknown paths stay 404 route_not_found.
 */
const api = useApi()
let issuer: Issuer
let grantId: string

beforeAll(async () => {
  issuer = await newIssuer()
  const created = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST)
  expect(created.status).toBe(201)
  grantId = created.body.id as string
})

const grantPath = () => `/programs/${issuer.programs.TEST}/grant-tokens`
const grantReadPath = () => `/programs/${issuer.programs.TEST}/grants/${grantId}`
const withKey = (body?: string) => ({
  headers: { 'x-api-key': issuer.keys.TEST, 'content-type': 'application/json' },
  ...(body === undefined ? {} : { body }),
})

/** HEAD through node:http (fetch gives no way to see that no body came). */
const head = (path: string) =>
  new Promise<{ status: number; allow: string | undefined; bytes: number; type: string }>(
    (resolve, reject) => {
      const url = new URL(api.baseUrl)
      const req = httpRequest(
        { host: url.hostname, port: url.port, method: 'HEAD', path, headers: withKey().headers },
        (res) => {
          let bytes = 0
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length
          })
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              allow: res.headers.allow,
              bytes,
              type: String(res.headers['content-type']),
            }),
          )
        },
      )
      req.on('error', reject)
      req.end()
    },
  )

describe('405 method_not_allowed', () => {
  it.each(['PUT', 'DELETE', 'GET', 'PATCH', 'OPTIONS'])(
    '%s on /programs/{programId}/grant-tokens: 405, Allow: POST, nothing written',
    async (method) => {
      await expectNothingWritten(issuer.programs.TEST, async () => {
        const body =
          method === 'GET' || method === 'OPTIONS' ? undefined : JSON.stringify(grantBody())
        const call = await request(api.baseUrl, method, grantPath(), withKey(body))
        expectProblem(call, 405, 'method_not_allowed')
        expect(call.headers.get('allow')).toBe('POST')
        expect(call.body.detail).toContain(`${method} ${grantPath()}`)
      })
    },
  )

  it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])(
    '%s on /programs/{programId}/grants/{grantId}: 405, Allow: GET, nothing written',
    async (method) => {
      await expectNothingWritten(issuer.programs.TEST, async () => {
        const body = method === 'OPTIONS' ? undefined : JSON.stringify(grantBody())
        const call = await request(api.baseUrl, method, grantReadPath(), withKey(body))
        expectProblem(call, 405, 'method_not_allowed')
        expect(call.headers.get('allow')).toBe('GET')
      })
    },
  )

  it('HEAD is a method of its own (no GET route answers it): 405 with Allow and no body', async () => {
    expect(await head(grantReadPath())).toEqual({
      status: 405,
      allow: 'GET',
      bytes: 0,
      type: 'application/problem+json',
    })
    expect(await head(grantPath())).toMatchObject({ status: 405, allow: 'POST', bytes: 0 })
  })

  it('the routes themselves still answer: POST grants, GET reads', async () => {
    expect((await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST)).status).toBe(201)
    expect((await request(api.baseUrl, 'GET', grantReadPath(), withKey())).status).toBe(200)
  })

  it('any program or grant id is a path of the API: 405 before any lookup', async () => {
    for (const path of [
      `/programs/${newId('program')}/grant-tokens`,
      '/programs/whatever/grant-tokens',
      `/programs/prg_x/grants/${newId('grant')}`,
    ]) {
      expectProblem(await request(api.baseUrl, 'DELETE', path), 405, 'method_not_allowed')
    }
  })
})

describe('paths the API does not have stay 404 route_not_found, without Allow', () => {
  it.each([
    '/nowhere',
    '/programs',
    '/programs/x/grant-tokens/',
    '/programs//grant-tokens',
    '/programs/x/grant-tokens/extra',
  ])('DELETE %s', async (path) => {
    const call = await request(api.baseUrl, 'DELETE', path)
    expectProblem(call, 404, 'route_not_found')
    expect(call.headers.get('allow')).toBeNull()
  })
})

describe('the NotFound function, as API Gateway invokes it ($default)', () => {
  const invoke = (method: string, rawPath: string) =>
    notFound(
      {
        version: '2.0',
        routeKey: '$default',
        rawPath,
        rawQueryString: '',
        headers: { host: 'abc123defg.execute-api.eu-west-1.amazonaws.com' },
        requestContext: {
          accountId: '123456789012',
          apiId: 'abc123defg',
          domainName: 'abc123defg.execute-api.eu-west-1.amazonaws.com',
          domainPrefix: 'abc123defg',
          http: {
            method,
            path: rawPath,
            protocol: 'HTTP/1.1',
            sourceIp: '203.0.113.10',
            userAgent: 'x',
          },
          requestId: 'req-405',
          routeKey: '$default',
          stage: '$default',
          time: '25/Nov/2026:22:19:24 +0000',
          timeEpoch: 1795645164000,
        },
        isBase64Encoded: false,
      } as APIGatewayProxyEventV2,
      { awsRequestId: 'aws-req', getRemainingTimeInMillis: () => 10_000 } as Context,
    )

  it('answers 405 with Allow for every route of ROUTES asked with another method', async () => {
    const routes = ROUTES.filter((r) => r.routeKey !== '$default')
    expect(routes.length).toBeGreaterThan(0)
    for (const route of routes) {
      const [, template] = route.routeKey.split(' ') as [string, string]
      const path = template.replace(/\{\w+\}/g, 'some-id')
      // Every method some route declares for this path template, and only those.
      const declared = [
        ...new Set(
          routes
            .map((r) => r.routeKey.split(' ') as [string, string])
            .filter(([, t]) => t === template)
            .map(([m]) => m),
        ),
      ].sort()
      expect(methodsForPath(path)).toEqual(declared)
      const other = ['PUT', 'DELETE', 'PATCH', 'POST', 'GET'].find((m) => !declared.includes(m))
      const result = await invoke(other as string, path)
      expect({ route: route.id, status: result.statusCode }).toEqual({
        route: route.id,
        status: 405,
      })
      expect(result.headers).toMatchObject({
        allow: declared.join(', '),
        'content-type': 'application/problem+json',
        // The function's own request id (domain/request-id.ts), under both names.
        'x-request-id': expect.stringMatching(REQUEST_ID_PATTERN),
        'request-id': result.headers?.['x-request-id'],
      })
      expect(JSON.parse(result.body as string)).toMatchObject({
        code: 'method_not_allowed',
        status: 405,
        requestId: result.headers?.['request-id'],
      })
    }
  })

  it('answers 404 for unknown paths, and for //host/... paths that only look like a route', async () => {
    for (const path of ['/nowhere', `//evil.example/programs/${newId('program')}/grant-tokens`]) {
      const result = await invoke('POST', path)
      expect(result.statusCode).toBe(404)
      expect(result.headers?.allow).toBeUndefined()
      expect(JSON.parse(result.body as string).code).toBe('route_not_found')
    }
  })
})

describe('MethodNotAllowed', () => {
  it('is in the public catalogue as 405 and maps to problem+json with its Allow header', () => {
    expect(ERROR_CODES.method_not_allowed).toBe(405)
    const { response, problem } = problemResponse(
      new MethodNotAllowed('PUT', '/programs/x/grant-tokens', ['POST']),
      'r-1',
    )
    expect(response.statusCode).toBe(405)
    expect(response.headers).toEqual({
      allow: 'POST',
      'content-type': 'application/problem+json',
    })
    expect(problem).toMatchObject({
      type: 'urn:virtual-shares:problem:method_not_allowed',
      status: 405,
      code: 'method_not_allowed',
      requestId: 'r-1',
    })
  })

  it('joins the methods of a path that has several', () => {
    expect(new MethodNotAllowed('PUT', '/p', ['GET', 'POST']).headers).toEqual({
      allow: 'GET, POST',
    })
  })
})
