import { GetCommand } from '@aws-sdk/lib-dynamodb'
import { parseList } from 'structured-headers'
import { allLeasesSettled } from '../../functions/core/rate-limiter'
import { idempotentGrantId } from '../../functions/domain/ids'
import { BURST_FACTOR } from '../../functions/domain/rate-limit'
import { REQUEST_ID_PATTERN } from '../../functions/domain/request-id'
import type { RequestLogEntry } from '../../functions/domain/request-log'
import { setRequestLogSink } from '../../functions/runtime/request-log-sink'
import {
  type Call,
  createKey,
  expectProblem,
  grantBody,
  newIssuer,
  postGrant,
  request,
} from '../support/api'
import { useApi } from '../support/api-harness'
import { config, documentClient, wallClock } from '../support/runtime'

/**
 * Per-key rate limits through the local server (issue 33): a burst on a TEST key with a small
 * limit gets 201s then 429 `rate_limited` with Retry-After and the RateLimit fields of
 * draft-ietf-httpapi-ratelimit-headers-11 (parsed with structured-headers, RFC 9651), refused
 * requests write nothing, and every answer has a Request-Id; each request of a known key is
 * recorded (runtime/request-log-sink.ts). The wall clock stands still: time is what the test says.
 */
const api = useApi()
const LIMIT = 2
const entries: RequestLogEntry[] = []

beforeAll(() => setRequestLogSink((entry) => entries.push(entry)))
afterAll(() => setRequestLogSink(undefined))
afterEach(() => wallClock.reset())

/** The fields of an answer, as the draft's grammar says: Lists of one Item with parameters. */
const fields = (call: Call) => {
  const policy = parseList(call.headers.get('ratelimit-policy') ?? '')
  const limit = parseList(call.headers.get('ratelimit') ?? '')
  expect(policy).toHaveLength(1)
  expect(limit).toHaveLength(1)
  expect(policy[0]?.[0]).toBe('key')
  expect(limit[0]?.[0]).toBe('key')
  return {
    policy: Object.fromEntries(policy[0]?.[1] ?? []),
    limit: Object.fromEntries(limit[0]?.[1] ?? []) as { r: number; t: number },
  }
}

const grantGone = async (issuerId: string, idempotencyKey: string) => {
  const { Item } = await documentClient.send(
    new GetCommand({
      TableName: config.tables.grants,
      Key: { grantId: idempotentGrantId(issuerId, 'TEST', idempotencyKey) },
    }),
  )
  return Item === undefined
}

describe('rate limits per key', () => {
  it('answers a burst with 201s, then 429 rate_limited with Retry-After and the RateLimit fields, writing nothing', async () => {
    const issuer = await newIssuer()
    const { secret, record } = await createKey({
      issuerId: issuer.issuerId,
      mode: 'TEST',
      rateLimit: LIMIT,
    })
    wallClock.freeze()
    const calls: Call[] = []
    for (let i = 0; i < 10; i++) {
      calls.push(
        await postGrant(api.baseUrl, issuer.programs.TEST, secret, grantBody(), {
          'idempotency-key': `burst-${i}`,
        }),
      )
      // Each request after the last one's lease came back: the outcome is the same on any machine.
      await allLeasesSettled()
    }
    const statuses = calls.map((c) => c.status)
    const made = statuses.filter((s) => s === 201).length
    // The burst, and at most the one request admitted on credit while the refusing lease flew.
    expect(made).toBeGreaterThanOrEqual(LIMIT * BURST_FACTOR)
    expect(made).toBeLessThanOrEqual(LIMIT * BURST_FACTOR + 1)
    expect(statuses).toEqual([...Array(made).fill(201), ...Array(10 - made).fill(429)])

    for (const call of calls) {
      expect(call.headers.get('request-id')).toMatch(REQUEST_ID_PATTERN)
      expect(fields(call).policy).toEqual({ q: LIMIT, w: 1 })
    }
    const refused = calls[made] as Call
    expectProblem(refused, 429, 'rate_limited')
    expect(refused.body.requestId).toBe(refused.headers.get('request-id'))
    const retryAfter = refused.headers.get('retry-after') ?? ''
    expect(retryAfter).toMatch(/^[1-9][0-9]*$/)
    expect(fields(refused).limit.r).toBe(0)
    expect(fields(refused).limit.t).toBeGreaterThanOrEqual(1)
    expect(fields(calls[0] as Call).limit.r).toBeGreaterThanOrEqual(0)

    // Nothing written for a refused request.
    for (let i = made; i < 10; i++)
      expect(await grantGone(issuer.issuerId, `burst-${i}`)).toBe(true)
    expect(await grantGone(issuer.issuerId, 'burst-0')).toBe(false)

    // Once the bucket has refilled, grants succeed again: at once where the instance repaid what
    // it admitted on credit during the wait (a timer, under npm start), else from the request
    // after the one that starts the repayment (a frozen Lambda; here the clock stands still).
    wallClock.advance((Number(retryAfter) + LIMIT * BURST_FACTOR) * 1000)
    const after: number[] = []
    for (let i = 0; i < 2 && !after.includes(201); i++) {
      const again = await postGrant(api.baseUrl, issuer.programs.TEST, secret, grantBody(), {
        'idempotency-key': `after-wait-${i}`,
      })
      after.push(again.status)
      await allLeasesSettled()
    }
    expect(after).toContain(201)

    // Every request of the key was recorded: its route key, status and code, ids, no secret.
    const mine = entries.filter((e) => e.keyId === record.keyId)
    expect(mine).toHaveLength(10 + after.length)
    expect(JSON.stringify(mine)).not.toContain(secret)
    expect(mine.find((e) => e.requestId === refused.headers.get('request-id'))).toEqual({
      requestId: refused.headers.get('request-id'),
      at: expect.any(String),
      issuerId: issuer.issuerId,
      mode: 'TEST',
      keyId: record.keyId,
      method: 'POST',
      route: 'POST /programs/{programId}/grant-tokens',
      programId: issuer.programs.TEST,
      status: 429,
      code: 'rate_limited',
      latencyMs: expect.any(Number),
      idempotencyKey: `burst-${made}`,
      replayed: false,
    })
    const first = calls[0] as Call
    expect(mine.find((e) => e.requestId === first.headers.get('request-id'))).toMatchObject({
      status: 201,
      grantId: first.body.id,
      replayed: false,
    })
    // The grant keeps the request that made it.
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: config.tables.grants, Key: { grantId: first.body.id } }),
    )
    expect(Item?.requestId).toBe(first.headers.get('request-id'))
    expect(first.text).not.toContain('requestId')
  })

  it('gives a missing or unknown key no fields, and every answer a Request-Id', async () => {
    const issuer = await newIssuer()
    const missing = await postGrant(api.baseUrl, issuer.programs.TEST, undefined)
    expectProblem(missing, 401, 'missing_api_key')
    const unknown = await request(api.baseUrl, 'GET', `/programs/${issuer.programs.TEST}`, {
      headers: { 'x-api-key': 'vs_test_nope' },
    })
    expectProblem(unknown, 401, 'invalid_api_key')
    const route = await request(api.baseUrl, 'GET', '/no-such-route')
    for (const call of [missing, unknown, route]) {
      expect(call.headers.get('ratelimit')).toBeNull()
      expect(call.headers.get('ratelimit-policy')).toBeNull()
      expect(call.headers.get('request-id')).toMatch(REQUEST_ID_PATTERN)
      expect(call.body.requestId).toBe(call.headers.get('request-id'))
      expect(call.headers.get('x-request-id')).toBe(call.headers.get('request-id'))
    }
    const read = await request(api.baseUrl, 'GET', `/programs/${issuer.programs.TEST}`, {
      headers: { 'x-api-key': issuer.keys.TEST },
    })
    expect(read.status).toBe(200)
    expect(fields(read).policy).toEqual({ q: 2_000, w: 1 })
  })
})
