import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { GrantApiError, GrantClient } from '../../client/src'
import { grantBody, newIssuer, programState, startApi } from '../support/api'
import { injectFaults } from '../support/fault-injector'
import { dynamodb } from '../support/runtime'

let api: Awaited<ReturnType<typeof startApi>>
beforeAll(async () => {
  api = await startApi()
})
afterAll(() => api.close())

/** A scripted HTTP peer: answers the n-th request with the n-th handler, records the requests. */
const peer = async (script: ((req: IncomingMessage, res: ServerResponse) => void)[]) => {
  const seen: { idempotencyKey: string | undefined }[] = []
  const server = createServer((req, res) => {
    seen.push({ idempotencyKey: req.headers['idempotency-key'] as string | undefined })
    req.resume()
    ;(script[Math.min(seen.length - 1, script.length - 1)] as (typeof script)[number])(req, res)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => server.close(),
  }
}
const problem =
  (status: number, code: string, headers: Record<string, string> = {}) =>
  (_: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/problem+json', ...headers })
    res.end(JSON.stringify({ status, code, detail: code, requestId: `req-${code}` }))
  }
const created = (_: IncomingMessage, res: ServerResponse) => {
  res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'req-ok' })
  res.end(JSON.stringify({ id: 'gr_x', amount: 1 }))
}
const request = { recipient: { email: 'ann@example.com' }, reason: 'Referral bonus', amount: 1 }

describe('GrantClient against the real local server', () => {
  it('grants, reads back, exposes the mode, and reports typed errors without retrying them', async () => {
    const issuer = await newIssuer({ pool: 5 })
    const client = new GrantClient({ apiKey: issuer.keys.LIVE, baseUrl: api.baseUrl })
    expect(client.mode).toBe('LIVE')
    expect(new GrantClient({ apiKey: issuer.keys.TEST, baseUrl: api.baseUrl }).mode).toBe('TEST')
    expect(() => new GrantClient({ apiKey: 'sk_test_x', baseUrl: api.baseUrl })).toThrow(/vs_test_/)

    const result = await client.grantTokens(issuer.programs.LIVE, { ...request, amount: 4 })
    expect(result).toMatchObject({
      replayed: false,
      attempts: 1,
      grant: { amount: 4, mode: 'LIVE' },
    })
    expect(await client.getGrant(issuer.programs.LIVE, result.grant.id)).toEqual({
      ...result.grant,
      rejectionReason: null,
      expiresAt: expect.any(String),
      delivery: 'pending',
      history: [],
    })
    const again = await client.grantTokens(
      issuer.programs.LIVE,
      { ...request, amount: 4 },
      { idempotencyKey: result.idempotencyKey },
    )
    expect(again).toMatchObject({ replayed: true, grant: result.grant })

    const failures = [
      [issuer.programs.LIVE, { ...request, amount: 0 }, 400, 'validation_failed'],
      [issuer.programs.TEST, request, 403, 'mode_mismatch'],
      [issuer.programs.LIVE, { ...request, amount: 2 }, 409, 'pool_exhausted'],
    ] as const
    for (const [programId, body, status, code] of failures) {
      const error = await client.grantTokens(programId, body).catch((e) => e)
      expect(error).toBeInstanceOf(GrantApiError)
      expect(error).toMatchObject({ status, code, retryable: false, requestId: expect.any(String) })
    }
    // Another last character (the checksum's): a key that looks right and is not.
    const last = issuer.keys.LIVE.slice(-1) === '0' ? '1' : '0'
    const bad = await new GrantClient({
      apiKey: `${issuer.keys.LIVE.slice(0, -1)}${last}`,
      baseUrl: api.baseUrl,
    })
      .grantTokens(issuer.programs.LIVE, request)
      .catch((e) => e)
    expect(bad).toMatchObject({ status: 401, retryable: false })
    expect((await programState(issuer.programs.LIVE)).grants).toHaveLength(1)
  })

  it("follows a grant's life: the program, a TEST move, the balance, a cancel", async () => {
    const issuer = await newIssuer({ pool: 5 })
    const client = new GrantClient({ apiKey: issuer.keys.TEST, baseUrl: api.baseUrl })
    const program = issuer.programs.TEST
    const email = 'Ann.Client@example.com'
    const { grant } = await client.grantTokens(program, { ...request, recipient: { email } })
    const second = (await client.grantTokens(program, { ...request, amount: 2 })).grant
    expect(await client.getProgram(program)).toMatchObject({ id: program, issued: 3, remaining: 2 })

    expect(await client.testTransition(program, grant.id, { to: 'accepted' })).toMatchObject({
      id: grant.id,
      status: 'accepted',
    })
    // The address in the path is encoded by the client and normalised by the API.
    expect(await client.getBalance(program, email)).toMatchObject({
      object: 'balance',
      person: { email: 'ann.client@example.com' },
      tokenAmount: 1,
      grantCount: 1,
      participationStatus: 'accepted',
    })
    expect(await client.cancelGrant(program, second.id)).toMatchObject({ status: 'canceled' })
    expect(await client.getProgram(program)).toMatchObject({ issued: 1, remaining: 4 })

    const refused = await client
      .testTransition(program, grant.id, { to: 'rejected' })
      .catch((e) => e)
    expect(refused).toBeInstanceOf(GrantApiError)
    expect(refused).toMatchObject({ status: 409, code: 'grant_accepted', retryable: false })
  })

  it('loses and doubles nothing while half of the DynamoDB calls fail', async () => {
    const issuer = await newIssuer()
    const client = new GrantClient({
      apiKey: issuer.keys.TEST,
      baseUrl: api.baseUrl,
      retry: { baseDelayMs: 5, maxDelayMs: 50, maxAttempts: 30 },
    })
    const faults = injectFaults(dynamodb, { rate: 0.5, seed: 7 })
    let results: Awaited<ReturnType<typeof client.grantTokens>>[]
    try {
      results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          client.grantTokens(
            issuer.programs.TEST,
            grantBody({ amount: 1 + (i % 3) }) as typeof request,
          ),
        ),
      )
    } finally {
      faults.stop()
    }
    expect(faults.stats['lost-response']).toBeGreaterThan(0)
    const state = await programState(issuer.programs.TEST)
    expect(state.grants).toHaveLength(40)
    expect(new Set(state.grants.map((g) => g.idempotencyKey))).toEqual(
      new Set(results.map((r) => r.idempotencyKey)),
    )
    expect(state.issued).toBe(results.reduce((s, r) => s + r.grant.amount, 0))
  })
})

describe('GrantClient retry policy', () => {
  it('retries 503, 429, 5xx and a conflict 409 with one Idempotency-Key, honouring Retry-After', async () => {
    const server = await peer([
      problem(503, 'service_unavailable', { 'retry-after': '2' }),
      problem(429, 'too_many_requests'),
      problem(500, 'internal_error'),
      problem(409, 'request_conflict', { 'retry-after': '1' }),
      created,
    ])
    const delays: number[] = []
    const client = new GrantClient({
      apiKey: 'vs_test_x',
      baseUrl: server.url,
      sleep: async (ms) => void delays.push(ms),
      random: () => 0.5,
    })
    const result = await client.grantTokens('prg_x', request)
    server.close()
    // The 429 was waited out, not spent: four attempts of the budget, one rate-limit wait.
    expect(result).toMatchObject({ attempts: 4, rateLimited: 1 })
    expect(new Set(server.seen.map((s) => s.idempotencyKey))).toEqual(
      new Set([result.idempotencyKey]),
    )
    expect(delays[0]).toBeGreaterThanOrEqual(2000)
    expect(delays[3]).toBeGreaterThanOrEqual(1000)
    expect(delays[1]).toBeLessThan(1000)
  })

  it('never retries a 4xx that cannot succeed', async () => {
    const server = await peer([problem(422, 'idempotency_key_reused'), created])
    const error = await new GrantClient({ apiKey: 'vs_live_x', baseUrl: server.url })
      .grantTokens('prg_x', request)
      .catch((e) => e)
    server.close()
    expect(error).toMatchObject({ status: 422, code: 'idempotency_key_reused', retryable: false })
    expect(server.seen).toHaveLength(1)
  })

  it('aborts a hanging attempt and retries it, and gives up at the deadline', async () => {
    const hanging = await peer([() => {}, created])
    const client = new GrantClient({
      apiKey: 'vs_test_x',
      baseUrl: hanging.url,
      retry: { attemptTimeoutMs: 200, baseDelayMs: 1 },
    })
    const result = await client.grantTokens('prg_x', request)
    expect(result.attempts).toBe(2)
    expect(hanging.seen[0]?.idempotencyKey).toBe(hanging.seen[1]?.idempotencyKey)
    hanging.close()

    const down = await peer([problem(503, 'service_unavailable')])
    const error = await new GrantClient({
      apiKey: 'vs_test_x',
      baseUrl: down.url,
      retry: { deadlineMs: 300, baseDelayMs: 50, maxAttempts: 100 },
    })
      .grantTokens('prg_x', request)
      .catch((e) => e)
    down.close()
    expect(error).toMatchObject({ code: 'deadline_exceeded', retryable: true, status: 503 })
    expect(down.seen.length).toBeGreaterThan(1)

    // A port nothing listens on: a peer's, closed (fetch refuses port 9 itself, "bad port").
    const closed = await peer([created])
    closed.close()
    const refused = await new GrantClient({
      apiKey: 'vs_test_x',
      baseUrl: closed.url,
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    })
      .grantTokens('prg_x', request)
      .catch((e) => e)
    expect(refused).toMatchObject({
      status: 0,
      code: 'network_error',
      retryable: true,
      detail: `fetch failed: connect ECONNREFUSED ${new URL(closed.url).host}`,
    })
  })
})
