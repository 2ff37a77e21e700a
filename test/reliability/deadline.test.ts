import { connect, createServer, type Server, type Socket } from 'node:net'
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda'
import { buildRuntime, type Runtime } from '../../functions/composition'
import { newId } from '../../functions/domain/ids'
import { httpHandler } from '../../functions/http/http-handler'
import { makeGetGrantHandler } from '../../functions/http/routes/get-grant.route'
import { makeGrantTokensHandler } from '../../functions/http/routes/grant-tokens.route'
import { BUDGET, DYNAMODB_TIMEOUTS } from '../../functions/runtime/deadline'
import { getGrantDeps } from '../../functions/wiring/get-grant.deps'
import { grantTokensDeps } from '../../functions/wiring/grant-tokens.deps'
import { newIssuer, programState } from '../support/api'
import { config } from '../support/runtime'
import { VirtualTime } from '../support/virtual-time'

/**
 * Every request answers inside the function's budget, whatever DynamoDB does. The database here is
 * a real TCP server on loopback that misbehaves, and the handlers are the real ones, with the
 * real SDK client and its real HTTP handler: nothing is mocked above the socket. Time is virtual
 * (test/support/virtual-time.ts): the clock moves to the next timer only while every request is
 * held by its peer, so each budget is asserted to the millisecond, however slow the machine.
 */

// middy imports setTimeout from node:timers, which Jest's fake timers leave real (they fake the
// test's globals only): route that module's timers to the globals, so the last net runs on the clock.
jest.mock('node:timers', () => {
  const timers = jest.requireActual<typeof import('node:timers')>('node:timers')
  return {
    ...timers,
    setTimeout: (...args: Parameters<typeof setTimeout>) => globalThis.setTimeout(...args),
    clearTimeout: (timer?: NodeJS.Timeout) => globalThis.clearTimeout(timer),
  }
})

const time = new VirtualTime()
beforeEach(() => time.start())
afterEach(() => time.stop())

/** One request as the peer saw it, on the virtual clock: when it arrived, when the client gave up. */
type Attempt = { arrivedAt: number; abandonedAt?: number }
type Peer = {
  endpoint: string
  attempts: Attempt[]
  /** Once the peer has seen every attempt so far abandoned (the close reaches it just after). */
  abandoned: () => Promise<unknown>
  close: () => Promise<void>
}

/** Closes `server` and every connection it still has. */
const closeAll = (server: Server, sockets: Set<Socket>) =>
  new Promise<void>((resolve) => {
    for (const socket of sockets) socket.destroy()
    server.close(() => resolve())
  })

/**
 * Accepts every connection, reads what is sent, and answers after `answerAfterMs` (or never),
 * holding the request meanwhile.
 */
const misbehavingDynamoDb = async (answerAfterMs?: number): Promise<Peer> => {
  const attempts: Attempt[] = []
  const closes: Promise<void>[] = []
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    socket.once('data', () => {
      const attempt: Attempt = { arrivedAt: Date.now() }
      attempts.push(attempt)
      const unhold = time.hold(socket)
      closes.push(
        new Promise((resolve) =>
          socket.once('close', () => {
            sockets.delete(socket)
            attempt.abandonedAt = Date.now()
            unhold()
            resolve()
          }),
        ),
      )
      if (answerAfterMs === undefined) return
      const timer = setTimeout(() => {
        unhold()
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
    attempts,
    abandoned: () => Promise.all(closes),
    close: () => {
      for (const timer of timers) clearTimeout(timer)
      return closeAll(server, sockets)
    },
  }
}

/**
 * A loopback proxy in front of `target` that holds every request arriving before `release()`,
 * then lets them (and every later one) through: a healthy DynamoDB that answers exactly when the
 * test says.
 */
const gateTo = async (target: string) => {
  const { hostname, port: targetPort } = new URL(target)
  const arrivals: number[] = []
  const held: Array<() => void> = []
  const sockets = new Set<Socket>()
  let released = false
  const pass = (client: Socket, first: Buffer) => {
    const upstream = connect(Number(targetPort), hostname)
    sockets.add(upstream)
    upstream.on('error', () => client.destroy())
    upstream.on('close', () => {
      sockets.delete(upstream)
      client.destroy()
    })
    client.on('close', () => upstream.destroy())
    upstream.write(first)
    client.pipe(upstream).pipe(client)
  }
  const server = createServer((client) => {
    sockets.add(client)
    client.on('error', () => {})
    client.on('close', () => sockets.delete(client))
    client.once('data', (first: Buffer) => {
      if (released) return pass(client, first)
      client.pause()
      arrivals.push(Date.now())
      const unhold = time.hold(client)
      client.once('close', unhold)
      held.push(() => {
        unhold()
        if (!client.destroyed) pass(client, first)
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    /** When each held request arrived (virtual clock). */
    arrivals,
    get released() {
      return released
    },
    release: () => {
      released = true
      for (const letThrough of held.splice(0)) letThrough()
    },
    close: () => closeAll(server, sockets),
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

/** The test's runtimes, each with its own DynamoDB client for `endpoint`; destroyed after each test. */
const runtimes: Runtime[] = []
const runtimeFor = (endpoint: string) => {
  const runtime = buildRuntime({ ...config, dynamodbEndpoint: endpoint, awsRegion: 'local' })
  runtimes.push(runtime)
  return runtime
}
afterEach(() => {
  for (const runtime of runtimes.splice(0)) runtime.dynamodb.destroy()
})

/** The answer and when it came, in virtual milliseconds after the call. */
type Timed = { result: APIGatewayProxyStructuredResultV2; at: number }
const timed = async (run: () => Promise<APIGatewayProxyStructuredResultV2>): Promise<Timed> => {
  const started = Date.now()
  const result = await run()
  return { result, at: Date.now() - started }
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

/** The deadline of a request with `remainingMs` left (functions/runtime/deadline.ts). */
const deadlineOf = (remainingMs: number) =>
  remainingMs - Math.min(BUDGET.answerMarginMs, remainingMs * BUDGET.answerMarginShare)

/**
 * The peer saw `maxAttempts` requests, each on its own connection, each abandoned exactly one
 * attempt timeout after it arrived; the answer came the moment the last was abandoned.
 */
const expectAttemptsAbandoned = async (peer: Peer, answeredAt: number) => {
  await peer.abandoned()
  expect(peer.attempts).toHaveLength(DYNAMODB_TIMEOUTS.maxAttempts)
  for (const { arrivedAt, abandonedAt } of peer.attempts) {
    expect((abandonedAt as number) - arrivedAt).toBe(DYNAMODB_TIMEOUTS.attemptTimeoutMs)
  }
  expect(peer.attempts.at(-1)?.abandonedAt).toBe(answeredAt)
}

let issuer: Awaited<ReturnType<typeof newIssuer>>
beforeAll(async () => {
  issuer = await newIssuer()
})

describe.each([
  ['accepts connections and never answers', undefined],
  ['answers only after the whole budget (12 s)', 12_000],
])('DynamoDB that %s', (_, answerAfterMs) => {
  // A grant and a read, side by side on their own peers, on one clock.
  it('grant and read: 503 + Retry-After in problem+json well inside 10,000 ms, each after more than one connection', async () => {
    const [grantPeer, readPeer] = await Promise.all([
      misbehavingDynamoDb(answerAfterMs),
      misbehavingDynamoDb(answerAfterMs),
    ])
    try {
      const grant = makeGrantTokensHandler(grantTokensDeps(runtimeFor(grantPeer.endpoint)))
      const read = makeGetGrantHandler(getGrantDeps(runtimeFor(readPeer.endpoint)))
      const start = Date.now()
      const [granted, fetched] = await time.until(
        Promise.all([
          timed(() =>
            grant(grantEvent(issuer.programs.TEST, issuer.keys.TEST), contextWith(10_000)),
          ),
          timed(() =>
            read(
              getEvent(issuer.programs.TEST, newId('grant'), issuer.keys.TEST),
              contextWith(10_000),
            ),
          ),
        ]),
      )
      for (const [answer, peer] of [
        [granted, grantPeer],
        [fetched, readPeer],
      ] as const) {
        expect503(answer.result)
        // Abandoned after each attempt's timeout, then retried on a fresh connection.
        await expectAttemptsAbandoned(peer, start + answer.at)
        // Before the deadline (7,500 ms), which leaves the answer time to reach the caller.
        expect(answer.at).toBeLessThan(deadlineOf(10_000))
      }
    } finally {
      await Promise.all([grantPeer.close(), readPeer.close()])
    }
  })
})

describe('a short budget', () => {
  it('with 2,000 ms remaining, answers 503 before the function would be stopped', async () => {
    const peer = await misbehavingDynamoDb()
    try {
      const handler = makeGrantTokensHandler(grantTokensDeps(runtimeFor(peer.endpoint)))
      const start = Date.now()
      const { result, at } = await time.until(
        timed(() =>
          handler(grantEvent(issuer.programs.TEST, issuer.keys.TEST), contextWith(2_000)),
        ),
      )
      expect503(result)
      // The deadline (1,200 ms) cuts the first attempt short and answers, before middy's last net
      // (1,500 ms) and Lambda's end.
      expect(deadlineOf(2_000)).toBe(1_200)
      expect(at).toBe(deadlineOf(2_000))
      await peer.abandoned()
      expect(peer.attempts).toEqual([{ arrivedAt: start, abandonedAt: start + at }])
      expect(at).toBeLessThan(2_000 - BUDGET.lastNetMs)
    } finally {
      await peer.close()
    }
  })

  it('a request against a hung DynamoDB does not cut short another, overlapping one', async () => {
    const [peer, gate] = await Promise.all([
      misbehavingDynamoDb(),
      gateTo(config.dynamodbEndpoint as string),
    ])
    try {
      const hung = makeGrantTokensHandler(grantTokensDeps(runtimeFor(peer.endpoint)))
      const healthy = makeGrantTokensHandler(grantTokensDeps(runtimeFor(gate.endpoint)))
      const before = await programState(issuer.programs.TEST)
      const start = Date.now()
      const events: Array<[string, number]> = []
      const seen = (what: string) => events.push([what, Date.now() - start])
      // Both start now; the healthy one's first request waits at the gate until the hung one's
      // deadline has cut its attempt, and only then reaches DynamoDB Local.
      const [failed, made] = await time.until(
        Promise.all([
          hung(grantEvent(issuer.programs.TEST, issuer.keys.TEST), contextWith(1_000)).finally(() =>
            seen('hung answered'),
          ),
          healthy(grantEvent(issuer.programs.TEST, issuer.keys.TEST), contextWith(10_000)).finally(
            () => seen('healthy answered'),
          ),
        ]),
        () => {
          const abandoned = peer.attempts[0]?.abandonedAt
          if (gate.released || abandoned === undefined) return false
          events.push(['hung attempt abandoned', abandoned - start])
          seen('healthy let through')
          gate.release()
          return true
        },
      )
      expect503(failed)
      expect(made.statusCode).toBe(201)
      // With 1,000 ms left, the hung request's deadline (600 ms) cuts its key check (the rate
      // limit's, issue 33, before the route) and answers 503 at once; the healthy request was
      // waiting all along.
      expect(gate.arrivals).toEqual([start])
      expect(events).toEqual([
        ['hung answered', deadlineOf(1_000)],
        ['hung attempt abandoned', deadlineOf(1_000)],
        ['healthy let through', deadlineOf(1_000)],
        ['healthy answered', deadlineOf(1_000)],
      ])
      expect((await programState(issuer.programs.TEST)).issued).toBe(before.issued + 1)
    } finally {
      await Promise.all([peer.close(), gate.close()])
    }
  })
})

describe("middy's early timeout, the last net", () => {
  it('answers 503 in problem+json before the end when a handler ignores its deadline', async () => {
    const stuck = httpHandler(() => new Promise<never>(() => {}))
    const { result, at } = await time.until(
      timed(() => stuck(getEvent('prg_x', 'gr_x', 'vs_test_x'), contextWith(1_500))),
    )
    expect503(result)
    // Exactly at middy's timeoutEarlyInMillis before the end, after the ignored deadline (900 ms).
    expect(at).toBe(1_500 - BUDGET.lastNetMs)
  })
})
