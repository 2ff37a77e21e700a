import type { APIGatewayProxyEventV2 } from 'aws-lambda'
import { FUNCTION_TIMEOUT_SECONDS } from '../../functions/routes'
import { lambdaContext, splitTarget } from '../../local/gateway/event'
import type { LambdaHandler } from '../../local/http-server'
import {
  type Call,
  expectNothingWritten,
  expectProblem,
  grantBody,
  type Issuer,
  newIssuer,
  programState,
  request,
  startApi,
} from '../support/api'
import { exchange, type RawAnswer } from './raw-client'

/**
 * The event and context the local adapter hands the functions, as API Gateway and Lambda would:
 * routing on the raw path, raw path and query in the event, bytes that are not UTF-8 passed as
 * base64, and a context whose remaining time counts down from the function's timeout.
 */
let port: number
let baseUrl: string
let issuer: Issuer
/** The fake clock the adapter's Lambda context reads; tests move `offset`. */
const clock = { start: Date.parse('2026-11-25T22:19:24.000Z'), offset: 0 }
const now = () => clock.start + clock.offset
/** What each invocation received: the event, and the remaining time when it started. */
const seen: { event: APIGatewayProxyEventV2; remainingAtStart: number; remainingLater: number }[] =
  []
/** Milliseconds the clock moves while a handler runs (before the real handler is called). */
let advanceDuringHandler = 0

const record =
  (handler: LambdaHandler): LambdaHandler =>
  async (event, context) => {
    const remainingAtStart = context.getRemainingTimeInMillis()
    clock.offset += advanceDuringHandler
    // A copy: the middleware chain rewrites the event it is given (the parsed body).
    seen.push({
      event: structuredClone(event),
      remainingAtStart,
      remainingLater: context.getRemainingTimeInMillis(),
    })
    return handler(event, context)
  }

let api: Awaited<ReturnType<typeof startApi>>
beforeAll(async () => {
  api = await startApi({ wrap: (_, handler) => record(handler), options: { now } })
  ;({ port, baseUrl } = api)
  issuer = await newIssuer()
})
afterAll(() => api.close())
beforeEach(() => {
  seen.splice(0)
  advanceDuringHandler = 0
})

/** A grant request with a raw request target, sent byte for byte; `body` as given. */
const rawGrant = (target: string, body: string | Buffer = JSON.stringify(grantBody())) =>
  exchange(
    port,
    Buffer.concat([
      Buffer.from(
        [
          `POST ${target} HTTP/1.1`,
          `Host: 127.0.0.1:${port}`,
          `x-api-key: ${issuer.keys.TEST}`,
          'Content-Type: application/json',
          `Content-Length: ${Buffer.byteLength(body)}`,
          'Connection: close',
          '',
          '',
        ].join('\r\n'),
      ),
      Buffer.from(body),
    ]),
  )

const json = (answer: RawAnswer) => ({
  status: answer.status ?? 0,
  body: JSON.parse(answer.body || '{}') as Record<string, unknown>,
})

describe('routing on the raw path', () => {
  it('splits the target at the first ?, and nothing else', () => {
    expect(splitTarget('/a/b')).toEqual({ rawPath: '/a/b', rawQueryString: '' })
    expect(splitTarget('/a?x=1?y=2&z')).toEqual({ rawPath: '/a', rawQueryString: 'x=1?y=2&z' })
    expect(splitTarget('//evil.example/a?')).toEqual({
      rawPath: '//evil.example/a',
      rawQueryString: '',
    })
  })

  it('//evil.example/programs/<id>/grant-tokens is no grant: the $default route answers 404', async () => {
    const path = `//evil.example/programs/${issuer.programs.TEST}/grant-tokens`
    await expectNothingWritten(issuer.programs.TEST, async () => {
      expectProblem(json(await rawGrant(path)), 404, 'route_not_found')
    })
    expect(seen.map((s) => s.event.routeKey)).toEqual(['$default'])
    expect(seen[0]?.event).toMatchObject({
      rawPath: path,
      rawQueryString: '',
      requestContext: { http: { method: 'POST', path } },
    })
    expect(seen[0]?.event.pathParameters).toBeUndefined()
  })

  it.each([
    ['a dot segment', (id: string) => `/programs/x/../${id}/grant-tokens`],
    ['an encoded dot segment', (id: string) => `/programs/x/%2E%2E/${id}/grant-tokens`],
    ['a trailing slash', (id: string) => `/programs/${id}/grant-tokens/`],
    ['a doubled slash inside', (id: string) => `/programs//${id}/grant-tokens`],
    ['a leading doubled slash', (id: string) => `//programs/${id}/grant-tokens`],
  ])('%s is not resolved into the grant route: 404, nothing written', async (_, make) => {
    const path = make(issuer.programs.TEST)
    await expectNothingWritten(issuer.programs.TEST, async () => {
      expectProblem(json(await rawGrant(path)), 404, 'route_not_found')
    })
    expect(seen.map((s) => [s.event.routeKey, s.event.rawPath])).toEqual([['$default', path]])
  })

  it('an absolute-form target (POST http://evil.example/...) is refused 400 before any function', async () => {
    await expectNothingWritten(issuer.programs.TEST, async () => {
      const answer = await rawGrant(
        `http://evil.example/programs/${issuer.programs.TEST}/grant-tokens`,
      )
      expect(answer.status).toBe(400)
      expect(JSON.parse(answer.body)).toEqual({ message: 'Bad Request' })
    })
    expect(seen).toEqual([])
  })

  it('the event carries rawPath, http.path and rawQueryString exactly as sent', async () => {
    const path = `/programs/${issuer.programs.TEST}/grant-tokens`
    const query = 'b=2&a=1&a=3&next=%2Fx%3Fy&plus=a+b&q=?z'
    const answer = await rawGrant(`${path}?${query}`)
    expect(answer.status).toBe(201)
    const event = seen[0]?.event as APIGatewayProxyEventV2
    expect(event).toMatchObject({
      routeKey: 'POST /programs/{programId}/grant-tokens',
      rawPath: path,
      rawQueryString: query,
      requestContext: { http: { path } },
      pathParameters: { programId: issuer.programs.TEST },
    })
    expect(event.queryStringParameters).toEqual({
      a: '1,3',
      b: '2',
      next: '/x?y',
      plus: 'a b',
      q: '?z',
    })
  })

  it('path parameters arrive URL-decoded, the raw path stays as sent', async () => {
    const encoded = issuer.programs.TEST.replace('_', '%5F')
    const answer = await rawGrant(`/programs/${encoded}/grant-tokens`)
    expect(answer.status).toBe(201)
    expect(seen[0]?.event).toMatchObject({
      rawPath: `/programs/${encoded}/grant-tokens`,
      pathParameters: { programId: issuer.programs.TEST },
    })
  })
})

describe('bodies that are not UTF-8', () => {
  const post = (body: Buffer, contentType = 'application/json') =>
    request(baseUrl, 'POST', `/programs/${issuer.programs.TEST}/grant-tokens`, {
      headers: { 'content-type': contentType, 'x-api-key': issuer.keys.TEST },
      body,
    })

  it.each([
    ['a lone 0xFF', Buffer.from([0x52, 0xff, 0x66, 0x65, 0x72, 0x72, 0x61, 0x6c])],
    ['a truncated sequence', Buffer.from([0x52, 0xc3])],
    ['an overlong encoding', Buffer.from([0xc0, 0xaf])],
    ['an encoded surrogate', Buffer.from([0xed, 0xa0, 0x80])],
    ['Latin-1 text', Buffer.from('Référral', 'latin1')],
  ])(
    '%s reaches the function as base64 and is refused 400 malformed_json; nothing written',
    async (_, bad) => {
      const bytes = Buffer.concat([
        Buffer.from('{"recipient":{"email":"ann@example.com"},"reason":"'),
        bad,
        Buffer.from('","amount":1}'),
      ])
      let call: Call | undefined
      await expectNothingWritten(issuer.programs.TEST, async () => {
        call = await post(bytes)
      })
      expectProblem(call as Call, 400, 'malformed_json')
      const event = seen[0]?.event as APIGatewayProxyEventV2
      expect(event.isBase64Encoded).toBe(true)
      expect(Buffer.from(event.body as string, 'base64').equals(bytes)).toBe(true)
    },
  )

  it('valid UTF-8 text stays a plain string and is stored exactly', async () => {
    const reason = 'Référral ✓ 株式 🎉'
    const call = await post(Buffer.from(JSON.stringify(grantBody({ reason })), 'utf8'))
    expect(call.status).toBe(201)
    expect(call.body.reason).toBe(reason)
    const event = seen[0]?.event as APIGatewayProxyEventV2
    expect(event.isBase64Encoded).toBe(false)
    expect(event.body).toBe(JSON.stringify(grantBody({ reason })))
    const stored = (await programState(issuer.programs.TEST)).grants.find(
      (g) => g.grantId === call.body.id,
    )
    expect(stored?.reason).toBe(reason)
  })

  it('a body that is not text (by its Content-Type) is base64 even when it is UTF-8', async () => {
    const call = await post(Buffer.from('{}'), 'application/octet-stream')
    expectProblem(call, 415, 'unsupported_media_type')
    expect(seen[0]?.event).toMatchObject({ isBase64Encoded: true, body: 'e30=' })
  })
})

describe('the Lambda context', () => {
  const TIMEOUT_MS = FUNCTION_TIMEOUT_SECONDS * 1000

  it('counts down from the function timeout from the start of the invocation, never below 0', () => {
    let t = 1_000_000
    const context = lambdaContext('req-1', 'GrantTokens', () => t)
    expect(context.getRemainingTimeInMillis()).toBe(TIMEOUT_MS)
    t += 2_500
    expect(context.getRemainingTimeInMillis()).toBe(TIMEOUT_MS - 2_500)
    t += TIMEOUT_MS
    expect(context.getRemainingTimeInMillis()).toBe(0)
    expect(context).toMatchObject({ awsRequestId: 'req-1', functionName: 'GrantTokens' })
    // Each invocation starts its own countdown.
    expect(lambdaContext('req-2', 'GrantTokens', () => t).getRemainingTimeInMillis()).toBe(
      TIMEOUT_MS,
    )
  })

  it('over HTTP, every invocation starts with the full timeout, and it runs down with the clock', async () => {
    const path = `/programs/${issuer.programs.TEST}/grants/gr_nope`
    const read = () => request(baseUrl, 'GET', path, { headers: { 'x-api-key': issuer.keys.TEST } })
    advanceDuringHandler = 3_000
    expect((await read()).status).toBe(404)
    clock.offset += 60_000
    expect((await read()).status).toBe(404)
    expect(seen.map((s) => [s.remainingAtStart, s.remainingLater])).toEqual([
      [TIMEOUT_MS, TIMEOUT_MS - 3_000],
      [TIMEOUT_MS, TIMEOUT_MS - 3_000],
    ])
    // The event's time is the same clock's.
    expect(seen[1]?.event.requestContext.timeEpoch).toBe(
      (seen[0]?.event.requestContext.timeEpoch as number) + 63_000,
    )
  })
})
