import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Item, serializeList } from 'structured-headers'
import {
  GrantApiError,
  GrantClient,
  GrantQueue,
  type QueueRecord,
  type QueueStore,
  type RetryPolicy,
} from '../../client/src'
import { RateGate } from '../../client/src/rate-limit'

/**
 * The client against a real HTTP server on loopback that answers as the rate-limited API does:
 * `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-11, serialized with
 * `structured-headers`), a `Request-Id` on every answer, 429 `rate_limited` with `Retry-After`.
 * Time is virtual: the client's clock and sleep are the test's, and the server reads the same
 * clock, so what is asserted never turns on how fast this machine runs.
 */

const request = { recipient: { email: 'ann@example.com' }, reason: 'Referral bonus', amount: 1 }
const item = (name: string, parameters: Record<string, number>): Item => [
  name,
  new Map(Object.entries(parameters)),
]

type Seen = { at: number; idempotencyKey: string | undefined; requestId: string; status?: number }
type Answer = { status: number; headers?: Record<string, string>; body?: unknown }

/** A server that answers each request with `answer(n)` (n from 1) and records when it came. */
const server = async (clock: () => number, answer: (n: number, at: number) => Answer) => {
  const seen: Seen[] = []
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    const requestId = `req_${seen.length + 1}`
    const at = clock()
    const record: Seen = { at, idempotencyKey: req.headers['idempotency-key'] as string, requestId }
    seen.push(record)
    const { status, headers = {}, body } = answer(seen.length, at)
    record.status = status
    const type = status < 400 ? 'application/json' : 'application/problem+json'
    res.writeHead(status, { 'content-type': type, 'request-id': requestId, ...headers })
    res.end(
      JSON.stringify(
        body ?? (status < 400 ? { id: `gr_${seen.length}` } : { status, code: 'rate_limited' }),
      ),
    )
  })
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((r) => http.close(r)),
  }
}
const fields = (q: number, r: number, t: number) => ({
  'ratelimit-policy': serializeList([item('key', { q, w: 1 })]),
  ratelimit: serializeList([item('key', { r, t })]),
})

/** One caller at a time: a sleep moves the virtual clock on by what was asked, and records it. */
const sequentialTime = () => {
  const time = { now: 0, slept: [] as number[] }
  return {
    time,
    now: () => time.now,
    sleep: async (ms: number) => {
      time.slept.push(ms)
      time.now += ms
    },
  }
}

describe('GrantClient and the rate limit', () => {
  it('waits out a 429 for its Retry-After, then succeeds, without spending an attempt', async () => {
    const { time, now, sleep } = sequentialTime()
    const api = await server(now, (n) =>
      n === 1
        ? // Retry-After takes precedence over a longer t (the draft's rule).
          { status: 429, headers: { ...fields(5, 0, 3), 'retry-after': '2' } }
        : { status: 201, headers: fields(5, 4, 1) },
    )
    // One attempt in the budget: a 429 spent as an attempt would end the call.
    const client = new GrantClient({
      apiKey: 'vs_test_x',
      baseUrl: api.url,
      retry: { maxAttempts: 1 },
      now,
      sleep,
    })
    const result = await client.grantTokens('prg_x', request)
    await api.close()
    expect(result).toMatchObject({ attempts: 1, rateLimited: 1, requestId: 'req_2' })
    expect(time.slept).toEqual([2000])
    expect(api.seen.map((s) => s.at)).toEqual([0, 2000])
    expect(new Set(api.seen.map((s) => s.idempotencyKey))).toEqual(new Set([result.idempotencyKey]))
    expect(client.rateLimit).toEqual({
      policies: [{ name: 'key', quota: 5, windowSeconds: 1 }],
      limit: { name: 'key', remaining: 4, resetSeconds: 1 },
    })
    expect(client.lastRequestId).toBe('req_2')
  })

  it('when r reaches 0, waits t before the next request instead of sending it to be refused', async () => {
    const { time, now, sleep } = sequentialTime()
    const api = await server(now, (n) => ({
      status: 201,
      headers: n === 1 ? fields(5, 0, 3) : fields(5, 4, 1),
    }))
    const client = new GrantClient({ apiKey: 'vs_test_x', baseUrl: api.url, now, sleep })
    await client.grantTokens('prg_x', request)
    expect(client.rateLimit.pausedUntil).toBe(3000)
    const second = await client.grantTokens('prg_x', request)
    await api.close()
    expect(api.seen.map((s) => s.at)).toEqual([0, 3000])
    expect(time.slept).toEqual([3000])
    expect(second).toMatchObject({ attempts: 1, rateLimited: 0 })
  })

  /** A call to a server that refuses every request with Retry-After: 1. */
  const refused = async (retry: Partial<RetryPolicy>) => {
    const { time, now, sleep } = sequentialTime()
    const api = await server(now, () => ({
      status: 429,
      headers: { ...fields(5, 0, 1), 'retry-after': '1' },
    }))
    const client = new GrantClient({ apiKey: 'vs_test_x', baseUrl: api.url, retry, now, sleep })
    const error = await client.grantTokens('prg_x', request).catch((e) => e)
    await api.close()
    expect(error).toBeInstanceOf(GrantApiError)
    return { error, sent: api.seen.map((s) => s.at), slept: time.slept }
  }

  it('caps the 429 waits apart from the attempts; the error carries the last Request-Id', async () => {
    const { error, sent } = await refused({ maxRateLimitWaits: 3, maxAttempts: 1 })
    expect(error).toMatchObject({
      status: 429,
      code: 'rate_limited',
      retryable: true,
      requestId: 'req_4',
    })
    expect(sent).toEqual([0, 1000, 2000, 3000])
  })

  it('gives up on a 429 whose wait ends past the deadline, without sleeping towards it', async () => {
    const { error, sent, slept } = await refused({ deadlineMs: 2500 })
    expect(error).toMatchObject({ status: 429, code: 'deadline_exceeded', requestId: 'req_3' })
    expect(sent).toEqual([0, 1000, 2000])
    expect(slept).toEqual([1000, 1000])
  })

  it("ends a rate-limit wait when the caller's signal aborts", async () => {
    const api = await server(Date.now, () => ({
      status: 429,
      headers: { ...fields(5, 0, 30), 'retry-after': '30' },
    }))
    // The real sleep: were the abort ignored, the call would wait 30 s and fail differently.
    const controller = new AbortController()
    const client = new GrantClient({ apiKey: 'vs_test_x', baseUrl: api.url })
    const call = client.grantTokens('prg_x', request, { signal: controller.signal })
    // Once the 429 is in (its Request-Id read), whenever the abort comes it ends the wait.
    while (client.lastRequestId === undefined) await new Promise((r) => setTimeout(r, 5))
    controller.abort(new Error('shutting down'))
    const error = await call.catch((e) => e)
    await api.close()
    expect(error).toMatchObject({
      code: 'aborted',
      status: 0,
      retryable: true,
      detail: 'Aborted by the caller: shutting down',
      requestId: 'req_1',
    })
    expect(api.seen).toHaveLength(1)
  })

  // Each: a 429 whose fields are malformed. A malformed Retry-After falls back to the backoff
  // (random 0.5 of 100 ms × 2): the fields must neither pause the client nor teach it a policy.
  it.each([
    ['r negative', { ratelimit: '"key";r=-1;t=2' }],
    ['t a Decimal', { ratelimit: '"key";r=0;t=1.5' }],
    ['t a Token', { ratelimit: '"key";r=0;t=abc' }],
    ['no r', { ratelimit: '"key";t=5' }],
    ['not a List', { ratelimit: 'key r=0 t=9', 'ratelimit-policy': '"key" q=1' }],
    ['an Inner List', { ratelimit: '("key");r=0;t=9' }],
    ['q a Decimal, w 0', { 'ratelimit-policy': '"a";q=0.5;w=1, "b";q=5;w=0' }],
    ['no q', { 'ratelimit-policy': '"key";w=1' }],
    ['Retry-After a fraction', { 'retry-after': '1.5' }],
    ['Retry-After a word', { 'retry-after': 'soon' }],
    ['Retry-After negative', { 'retry-after': '-3' }],
  ])('ignores malformed fields (%s), falling back to the backoff', async (_, headers) => {
    const { time, now, sleep } = sequentialTime()
    const api = await server(now, (n) => (n === 1 ? { status: 429, headers } : { status: 201 }))
    const client = new GrantClient({
      apiKey: 'vs_test_x',
      baseUrl: api.url,
      now,
      sleep,
      random: () => 0.5,
    })
    const result = await client.grantTokens('prg_x', request)
    await api.close()
    expect(result).toMatchObject({ attempts: 1, rateLimited: 1 })
    expect(time.slept).toEqual([100])
    expect(client.rateLimit).toEqual({ policies: [] })
  })

  it('honours a valid Retry-After beside malformed RateLimit fields', async () => {
    const { time, now, sleep } = sequentialTime()
    const api = await server(now, (n) =>
      n === 1
        ? { status: 429, headers: { ratelimit: '"key";r=zero', 'retry-after': '2' } }
        : { status: 201 },
    )
    const client = new GrantClient({ apiKey: 'vs_test_x', baseUrl: api.url, now, sleep })
    await client.grantTokens('prg_x', request)
    await api.close()
    expect(time.slept).toEqual([2000])
  })
})

describe('RateGate', () => {
  it('keeps to every policy at once, and reserves nothing past the wait allowed', () => {
    const gate = new RateGate(60_000)
    const policy = serializeList([item('burst', { q: 3, w: 1 }), item('minute', { q: 5, w: 60 })])
    gate.observe(new Headers({ 'ratelimit-policy': policy }), 0)
    expect(Array.from({ length: 5 }, () => gate.reserve(0))).toEqual([0, 0, 0, 1000, 1000])
    // The sixth waits for the first to leave the minute; a caller with less time reserves nothing.
    expect(gate.reserve(0, 59_999)).toBeUndefined()
    expect(gate.reserve(0)).toBe(60_000)
  })
})

/** A journal in memory holding `count` grants enqueued by an earlier run. */
const journalOf = (count: number) => {
  const journal: QueueRecord[] = Array.from({ length: count }, (_, i) => ({
    type: 'enqueued',
    at: new Date(0).toISOString(),
    id: `q${i}`,
    programId: 'prg_x',
    request,
    idempotencyKey: `key-${i}`,
  }))
  const store: QueueStore = {
    load: async () => [...journal],
    append: async (record) => void journal.push(record),
  }
  return { journal, store }
}

describe('GrantQueue and the rate limit', () => {
  it('stop() ends a delivery waiting out a 429; the grant stays pending and is delivered after a restart', async () => {
    let refusing = true
    const api = await server(Date.now, () =>
      refusing
        ? { status: 429, headers: { ...fields(5, 0, 30), 'retry-after': '30' } }
        : { status: 201, headers: fields(5, 4, 1) },
    )
    const { journal, store } = journalOf(1)
    // Real sleeps: were the wait not ended, stop() would deliver after 30 s, on a second request.
    const client = new GrantClient({ apiKey: 'vs_test_x', baseUrl: api.url })
    const first = new GrantQueue({ client, store })
    await first.start()
    while (client.lastRequestId === undefined) await new Promise((r) => setTimeout(r, 5))
    await first.stop()
    expect(api.seen).toHaveLength(1)
    expect(first.counts()).toEqual({ pending: 1, delivered: 0, failed: 0 })
    expect(journal.map((r) => r.type)).toEqual(['enqueued'])

    refusing = false
    const second = new GrantQueue({
      client: new GrantClient({ apiKey: 'vs_test_x', baseUrl: api.url }),
      store,
    })
    await second.start()
    await second.drain()
    await second.stop()
    await api.close()
    expect(second.counts()).toEqual({ pending: 0, delivered: 1, failed: 0 })
    expect(api.seen.map((s) => s.idempotencyKey)).toEqual(['key-0', 'key-0'])
  })

  it('never sends more than q requests in any window of w seconds, and is never refused', async () => {
    const Q = 5
    const TOTAL = 23
    const CONCURRENCY = 4
    // Virtual time for concurrent callers: each sleep waits until the test moves the clock to its
    // end, which it does only while every busy worker sleeps (none has a request on the wire).
    let clock = 0
    const sleepers: { at: number; wake: () => void }[] = []
    const sleep = (ms: number) =>
      new Promise<void>((wake) => sleepers.push({ at: clock + ms, wake }))

    // The API's side: a sliding window of q per second on the same clock; over it, a 429.
    const accepted: number[] = []
    const api = await server(
      () => clock,
      (_, at) => {
        const recent = accepted.filter((t) => t > at - 1000)
        const reset = (oldest: number | undefined) => Math.ceil(((oldest ?? at) + 1000 - at) / 1000)
        if (recent.length >= Q) {
          const wait = String(reset(recent[0]))
          return { status: 429, headers: { ...fields(Q, 0, Number(wait)), 'retry-after': wait } }
        }
        accepted.push(at)
        return { status: 201, headers: fields(Q, Q - recent.length - 1, reset(recent[0])) }
      },
    )

    // A journal from an earlier run: the queue resumes it, as after a restart.
    const { journal, store } = journalOf(TOTAL)
    const queue = new GrantQueue({
      client: new GrantClient({ apiKey: 'vs_test_x', baseUrl: api.url, now: () => clock, sleep }),
      store,
      concurrency: CONCURRENCY,
    })
    await queue.start()
    while (queue.counts().delivered < TOTAL) {
      await new Promise((r) => setTimeout(r, 1))
      const busy = Math.min(CONCURRENCY, queue.counts().pending)
      if (sleepers.length === 0 || sleepers.length < busy) continue
      sleepers.sort((a, b) => a.at - b.at)
      const next = sleepers.shift() as (typeof sleepers)[number]
      clock = Math.max(clock, next.at)
      next.wake()
    }
    await queue.stop()
    await api.close()

    // Never refused: every request came when the server had room for it.
    expect(api.seen.filter((s) => s.status !== 201)).toEqual([])
    expect(api.seen).toHaveLength(TOTAL)
    const perWindow = new Map<number, number>()
    for (const { at } of api.seen) {
      perWindow.set(Math.floor(at / 1000), (perWindow.get(Math.floor(at / 1000)) ?? 0) + 1)
    }
    // Four sent before the first answer taught the policy, a fifth, then q in each second.
    expect([...perWindow.entries()]).toEqual([
      [0, 5],
      [1, 5],
      [2, 5],
      [3, 5],
      [4, 3],
    ])
    expect(new Set(api.seen.map((s) => s.idempotencyKey)).size).toBe(TOTAL)
    expect(queue.counts()).toEqual({ pending: 0, delivered: TOTAL, failed: 0 })
    expect(journal.filter((r) => r.type === 'delivered')).toHaveLength(TOTAL)
  })
})
