import { createServer, type Server, type Socket } from 'node:net'
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda'
import { buildRuntime } from '../../functions/composition'
import { newId } from '../../functions/domain/ids'
import { httpHandler } from '../../functions/http/http-handler'
import { makeGetGrantHandler } from '../../functions/http/routes/get-grant.route'
import { makeGrantTokensHandler } from '../../functions/http/routes/grant-tokens.route'
import { BUDGET, DYNAMODB_TIMEOUTS } from '../../functions/runtime/deadline'
import { newIssuer, programState } from '../support/api'
import { config } from '../support/runtime'

/**
 * Every request answers inside the function's budget, whatever DynamoDB does. The database here is
 * a real TCP server on loopback that misbehaves, and the handlers are the real ones, with the
 * real SDK client and its real HTTP handler: nothing is mocked above the socket.
 */

type Peer = { endpoint: string; connections: () => number; close: () => Promise<void> }

/** Accepts every connection, reads what is sent, and answers after `answerAfterMs` (or never). */
const misbehavingDynamoDb = async (answerAfterMs?: number): Promise<Peer> => {
  let connections = 0
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  const server: Server = createServer((socket) => {
    connections++
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    socket.once('data', () => {
      if (answerAfterMs === undefined) return
      const timer = setTimeout(() => {
        const body = '{}'
        socket.end(
          `HTTP/1.1 200 OK\r\ncontent-type: application/x-amz-json-1.0\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
        )
      }, answerAfterMs)
      timers.add(timer)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer)
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A Lambda context whose remaining time counts down from `remainingMs`, as Lambda's does. */
const contextWith = (remainingMs: number): Context => {
  const start = Date.now()
  return {
    awsRequestId: `deadline-${Math.random()}`,
    functionName: 'deadline-test',
    getRemainingTimeInMillis: () => Math.max(0, remainingMs - (Date.now() - start)),
  } as Context
}

const grantEvent = (programId: string, apiKey: string): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: 'POST /programs/{programId}/grant-tokens',
    rawPath: `/programs/${programId}/grant-tokens`,
    rawQueryString: '',
    headers: {
      'content-type': 'application/json',
      'x-api-key': apiKey,
      'idempotency-key': `deadline-${Math.random()}`,
    },
    requestContext: {
      requestId: `deadline-${Math.random()}`,
      http: { method: 'POST', path: `/programs/${programId}/grant-tokens` },
    },
    pathParameters: { programId },
    body: JSON.stringify({
      recipient: { email: 'ann@example.com' },
      reason: 'Deadline',
      amount: 1,
    }),
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2

const getEvent = (programId: string, grantId: string, apiKey: string): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: 'GET /programs/{programId}/grants/{grantId}',
    rawPath: `/programs/${programId}/grants/${grantId}`,
    rawQueryString: '',
    headers: { 'x-api-key': apiKey },
    requestContext: {
      requestId: `deadline-${Math.random()}`,
      http: { method: 'GET', path: `/programs/${programId}/grants/${grantId}` },
    },
    pathParameters: { programId, grantId },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2

/** The test's runtime, with its own DynamoDB client for `endpoint`. */
const runtimeFor = (endpoint: string) =>
  buildRuntime({ ...config, dynamodbEndpoint: endpoint, awsRegion: 'local' })

const timed = async (run: () => Promise<APIGatewayProxyStructuredResultV2>) => {
  const started = Date.now()
  const result = await run()
  return { result, elapsedMs: Date.now() - started }
}

const expect503 = (result: APIGatewayProxyStructuredResultV2) => {
  expect(result.statusCode).toBe(503)
  expect(result.headers?.['content-type']).toBe('application/problem+json')
  expect(result.headers?.['retry-after']).toBe('1')
  expect(JSON.parse(result.body as string)).toMatchObject({
    status: 503,
    code: 'service_unavailable',
  })
}

let issuer: Awaited<ReturnType<typeof newIssuer>>
beforeAll(async () => {
  issuer = await newIssuer()
})

describe.each([
  ['accepts connections and never answers', undefined],
  ['answers only after the whole budget (12 s)', 12_000],
])('DynamoDB that %s', (_, answerAfterMs) => {
  // A grant and a read, side by side on their own peers: each waits on its own timers, so running
  // them together halves the file's wall time and changes nothing either measures.
  it('grant and read: 503 + Retry-After in problem+json well inside 10,000 ms, each after more than one connection', async () => {
    const [grantPeer, readPeer] = await Promise.all([
      misbehavingDynamoDb(answerAfterMs),
      misbehavingDynamoDb(answerAfterMs),
    ])
    try {
      const grant = makeGrantTokensHandler(runtimeFor(grantPeer.endpoint))
      const read = makeGetGrantHandler(runtimeFor(readPeer.endpoint))
      const [granted, fetched] = await Promise.all([
        timed(() => grant(grantEvent(issuer.programs.TEST, issuer.keys.TEST), contextWith(10_000))),
        timed(() =>
          read(
            getEvent(issuer.programs.TEST, newId('grant'), issuer.keys.TEST),
            contextWith(10_000),
          ),
        ),
      ])
      // The grant.
      expect503(granted.result)
      // Abandoned after each attempt's timeout, then retried on a fresh connection.
      expect(grantPeer.connections()).toBeGreaterThan(1)
      expect(granted.elapsedMs).toBeGreaterThanOrEqual(DYNAMODB_TIMEOUTS.attemptTimeoutMs)
      // The deadline is 7,500 ms; the answer must leave time to reach the caller.
      expect(granted.elapsedMs).toBeLessThan(10_000 - BUDGET.answerMarginMs)
      // The read.
      expect503(fetched.result)
      expect(readPeer.connections()).toBeGreaterThan(1)
      expect(fetched.elapsedMs).toBeLessThan(10_000 - BUDGET.answerMarginMs)
    } finally {
      await Promise.all([grantPeer.close(), readPeer.close()])
    }
  })
})

describe('a short budget', () => {
  it('with 2,000 ms remaining, answers 503 before the function would be stopped', async () => {
    const peer = await misbehavingDynamoDb()
    try {
      const handler = makeGrantTokensHandler(runtimeFor(peer.endpoint))
      const { result, elapsedMs } = await timed(() =>
        handler(grantEvent(issuer.programs.TEST, issuer.keys.TEST), contextWith(2_000)),
      )
      expect503(result)
      // The deadline (1,200 ms) answers, before middy's last net (1,500 ms) and Lambda's end.
      expect(elapsedMs).toBeLessThan(2_000 - BUDGET.lastNetMs)
    } finally {
      await peer.close()
    }
  })

  it('a request against a hung DynamoDB does not cut short another, overlapping one', async () => {
    const peer = await misbehavingDynamoDb()
    try {
      const hung = makeGrantTokensHandler(runtimeFor(peer.endpoint))
      const healthy = makeGrantTokensHandler(runtimeFor(config.dynamodbEndpoint as string))
      const before = await programState(issuer.programs.TEST)
      const [failed, made] = await Promise.all([
        hung(grantEvent(issuer.programs.TEST, issuer.keys.TEST), contextWith(1_000)),
        // Starts while the first is waiting, finishes after the first's deadline has passed.
        new Promise<APIGatewayProxyStructuredResultV2>((resolve, reject) =>
          setTimeout(
            () =>
              healthy(grantEvent(issuer.programs.TEST, issuer.keys.TEST), contextWith(10_000))
                .then(resolve)
                .catch(reject),
            500,
          ),
        ),
      ])
      expect503(failed)
      expect(made.statusCode).toBe(201)
      expect((await programState(issuer.programs.TEST)).issued).toBe(before.issued + 1)
    } finally {
      await peer.close()
    }
  })
})

describe("middy's early timeout, the last net", () => {
  it('answers 503 in problem+json before the end when a handler ignores its deadline', async () => {
    const stuck = httpHandler(() => new Promise<never>(() => {}))
    const { result, elapsedMs } = await timed(() =>
      stuck(getEvent('prg_x', 'gr_x', 'vs_test_x'), contextWith(1_500)),
    )
    expect503(result)
    expect(elapsedMs).toBeGreaterThanOrEqual(1_500 - BUDGET.lastNetMs - 50)
    expect(elapsedMs).toBeLessThan(1_500)
  })
})
