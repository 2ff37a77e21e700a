import { request } from 'node:http'
import { buildRuntime } from '../../functions/composition'
import { makeAdmin } from '../../functions/core/admin'
import { makeGrantLife } from '../../functions/core/grant-life'
import { generateApiKey, hashApiKey, maskApiKey } from '../../functions/domain/api-key'
import { newId } from '../../functions/domain/ids'
import { matchRoute, ROUTES } from '../../functions/routes'
import { DynamoDbAdminStore } from '../../functions/stores/admin.dynamodb'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import { tableNames } from '../../functions/table-schema'
import { LOCAL_CONSUMERS } from '../../local/consumer-factories'
import { MAX_ADVANCE_MS } from '../../local/dev-pages/clock-page'
import { OffsetClock } from '../../local/offset-clock'
import { type LocalPipeline, startLocalPipeline } from '../../local/pipeline'
import { ensureTables } from '../../local/tables'
import { startApi } from '../support/api'
import { checkClock, config, documentClient, dynamodb } from '../support/runtime'
import { exchange } from './raw-client'

/**
 * npm start's clock control (local/dev-pages/clock-page.ts over local/offset-clock.ts), wired as
 * bin/local-server.ts wires it: the functions' runtime reads the offset clock, the local pipeline
 * runs the same sweep as the Lambda (local/consumer-factories.ts), and POST /_local/clock moves
 * the clock and sweeps at once. Over HTTP, with a grant made through the API and its timers
 * written by the grants stream's reader from DynamoDB Local's stream.
 *
 * Tables of this file's own: a month's move must sweep no other file's grants.
 */
const DAY = 24 * 60 * 60 * 1000
const tables = tableNames('clock', `-${process.pid}`)
const clock = new OffsetClock()
const runtime = buildRuntime(
  { ...config, tables },
  { dynamodb, documentClient, clock, monotonic: checkClock },
)
const adminStore = new DynamoDbAdminStore(documentClient, tables)

type Answer = { status: number; type: string; body: Record<string, unknown> }
/** A request with the Host header chosen (what a DNS-rebinding page would send is its own name). */
const call = (
  port: number,
  method: string,
  path: string,
  { body, host, headers = {} }: { body?: string; host?: string; headers?: Record<string, string> },
) =>
  new Promise<Answer>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          ...(host === undefined ? {} : { host }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
      },
      (res) => {
        let text = ''
        res.on('data', (chunk) => {
          text += chunk
        })
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type']),
            body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
          }),
        )
      },
    )
    req.once('error', reject)
    req.end(body)
  })

let pipeline: LocalPipeline
let api: Awaited<ReturnType<typeof startApi>>
let target: { programId: string; key: string }

beforeAll(async () => {
  await ensureTables(dynamodb, tables)
  pipeline = await startLocalPipeline({
    runtime,
    consumers: { OfferSweep: LOCAL_CONSUMERS.OfferSweep },
    startAt: 'TRIM_HORIZON',
    pollMs: 50,
  })
  api = await startApi({
    runtime,
    options: {
      pipeline,
      clock: { clock, sweep: () => pipeline.runSchedule('OfferSweep') },
    },
  })
  const admin = makeAdmin(adminStore)
  const { issuerId } = await admin.createIssuer({ name: 'Clock' })
  const program = await admin.createProgram({
    issuer: issuerId,
    mode: 'TEST',
    name: 'clock',
    pool: 100,
  })
  const key = generateApiKey('TEST')
  await adminStore.createApiKey({
    keyHash: hashApiKey(key),
    keyId: newId('apiKey'),
    issuerId,
    mode: 'TEST',
    status: 'active',
    createdAt: new Date().toISOString(),
    ...maskApiKey(key),
  })
  target = { programId: program.programId, key }
})
afterAll(async () => {
  await api?.close()
  await pipeline?.stop()
})

const grant = async (n: number) => {
  const answer = await call(api.port, 'POST', `/programs/${target.programId}/grant-tokens`, {
    headers: { 'x-api-key': target.key, 'idempotency-key': `clock-${n}-${process.pid}` },
    body: JSON.stringify({
      recipient: { email: `clock${n}@example.com` },
      reason: 'Launch',
      amount: 7,
    }),
  })
  expect(answer.status).toBe(201)
  const { id } = answer.body as { id: string }
  const view = await call(api.port, 'GET', `/programs/${target.programId}/grants/${id}`, {
    headers: { 'x-api-key': target.key },
  })
  expect(view.status).toBe(200)
  return view.body as { id: string; expiresAt: string }
}
const statusOf = async (grantId: string) =>
  (
    await call(api.port, 'GET', `/programs/${target.programId}/grants/${grantId}`, {
      headers: { 'x-api-key': target.key },
    })
  ).body.status

describe('POST /_local/clock', () => {
  it("moves the functions' clock a month ahead and sweeps at once: the grant's offer has expired when the answer comes", async () => {
    const made = await grant(1)
    await pipeline.drain()
    const expiresAt = Date.parse(made.expiresAt)
    expect(expiresAt - clock.now()).toBeGreaterThan(29 * DAY)

    const before = await call(api.port, 'GET', '/_local/clock', {})
    expect(before.body.offsetMs).toBe(clock.offsetMs)

    // To the window's end (less the time the test has run): expired by the answer's sweep.
    const advanceMs = expiresAt - clock.now() + 1_000
    const moved = await call(api.port, 'POST', '/_local/clock', {
      body: JSON.stringify({ advanceMs }),
    })
    expect(moved.status).toBe(200)
    expect(moved.body.offsetMs).toBe(advanceMs + Number(before.body.offsetMs))
    expect(Date.parse(String(moved.body.now))).toBeGreaterThan(expiresAt)
    expect(moved.body.sweep).toMatchObject({ expired: 1, failed: 0, complete: true })
    expect(await statusOf(made.id)).toBe('expired')

    // The program's pool whole again, as the integrator reads it.
    const program = await call(api.port, 'GET', `/programs/${target.programId}`, {
      headers: { 'x-api-key': target.key },
    })
    expect(program.body).toMatchObject({ pool: 100, remaining: 100 })
  })

  it("is the clock of the grant path and the recipient's routes: a grant made after a move is dated by it, and its link refused once it has moved past the window", async () => {
    const made = await grant(2)
    // Its timers written (GrantStream) before the move's sweep looks for them.
    await pipeline.drain()
    // Dated on the moved clock, not real time.
    expect(clock.offsetMs).toBeGreaterThan(29 * DAY)
    expect(Date.parse(made.expiresAt) - clock.now()).toBeGreaterThan(29 * DAY)
    expect(Date.parse(made.expiresAt) - Date.now()).toBeGreaterThan(58 * DAY)
    const link = await makeGrantLife({
      store: new DynamoDbGrantLifeStore(documentClient, tables),
      clock: () => clock.now(),
    }).issueOfferLink(made.id)
    const token = link?.token as string
    const identified = await call(api.port, 'POST', '/recipient/identify', {
      body: JSON.stringify({ token, grantId: made.id, name: 'Clock' }),
    })
    expect(identified.status).toBe(200)

    const moved = await call(api.port, 'POST', '/_local/clock', {
      body: JSON.stringify({ advanceMs: Date.parse(made.expiresAt) - clock.now() }),
    })
    expect(moved.status).toBe(200)
    const refused = await call(api.port, 'POST', '/recipient/accept', {
      body: JSON.stringify({ token, grantId: made.id, termsVersion: 0 }),
    })
    expect(refused.status).toBe(404)
    expect(refused.type).toBe('application/problem+json')
    expect(refused.body.code).toBe('offer_link_invalid')
    expect(await statusOf(made.id)).toBe('expired')
  })

  it('answers only loopback host names, as /_local/mail does, and moves nothing otherwise', async () => {
    const offset = clock.offsetMs
    for (const host of ['evil.example', 'evil.example:3000', '10.0.0.1']) {
      const refused = await call(api.port, 'POST', '/_local/clock', {
        host,
        body: JSON.stringify({ advanceMs: DAY }),
      })
      expect(refused.status).toBe(403)
      expect(refused.type).toBe('application/problem+json')
      expect(refused.body.code).toBe('local-host-not-loopback')
    }
    expect(clock.offsetMs).toBe(offset)
    const local = await call(api.port, 'GET', '/_local/clock', { host: 'localhost:3000' })
    expect(local.status).toBe(200)
  })

  it('moves for no page or its own origin only: another origin, loopback ones included, gets 403 and moves nothing', async () => {
    const offset = clock.offsetMs
    const body = JSON.stringify({ advanceMs: 366 * DAY - 1 })
    for (const origin of [
      'http://evil.test',
      'http://127.0.0.1:9999',
      `http://localhost:${api.port}`,
      `https://127.0.0.1:${api.port}`,
      'null',
    ]) {
      const refused = await call(api.port, 'POST', '/_local/clock', { body, headers: { origin } })
      expect([origin, refused.status, refused.type]).toEqual([
        origin,
        403,
        'application/problem+json',
      ])
      expect(refused.body.code).toBe('local-origin-not-allowed')
    }
    expect(clock.offsetMs).toBe(offset)
    // This server's own page (its Host, its origin), JSON: moved.
    const own = await call(api.port, 'POST', '/_local/clock', {
      host: `localhost:${api.port}`,
      headers: { origin: `http://localhost:${api.port}` },
      body: JSON.stringify({ advanceMs: 1000 }),
    })
    expect(own.status).toBe(200)
    expect(clock.offsetMs).toBe(offset + 1000)
  })

  it('takes a move only as JSON: a form or text/plain (what a page sends without a preflight) gets 415 and moves nothing', async () => {
    const offset = clock.offsetMs
    for (const [type, body] of [
      ['application/x-www-form-urlencoded', 'advanceMs=31536000000'],
      ['text/plain;charset=UTF-8', '{"advanceMs":31536000000}'],
      ['multipart/form-data; boundary=x', '--x\r\n\r\n{"advanceMs":1}\r\n--x--\r\n'],
    ] as const) {
      const refused = await call(api.port, 'POST', '/_local/clock', {
        body,
        headers: { 'content-type': type },
      })
      expect([type, refused.status, refused.type]).toEqual([type, 415, 'application/problem+json'])
      expect(refused.body.code).toBe('local-body-not-json')
    }
    const untyped = await exchange(
      api.port,
      'POST /_local/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 17\r\nConnection: close\r\n\r\n{"advanceMs":100}',
    )
    expect(untyped.status).toBe(415)
    expect(clock.offsetMs).toBe(offset)
  })

  it('refuses a body that is not a forward move of whole milliseconds, with a problem, moving nothing', async () => {
    const offset = clock.offsetMs
    for (const body of [
      '',
      'not json',
      '{}',
      '{"advanceMs": -1}',
      '{"advanceMs": 1.5}',
      '{"advanceMs": "1000"}',
      `{"advanceMs": ${MAX_ADVANCE_MS + 1}}`,
      '{"advanceMs": 1000, "to": "2030-01-01"}',
    ]) {
      const refused = await call(api.port, 'POST', '/_local/clock', { body })
      expect([body, refused.status, refused.type]).toEqual([body, 400, 'application/problem+json'])
      expect(refused.body).toMatchObject({ status: 400, code: 'validation_failed' })
    }
    expect(clock.offsetMs).toBe(offset)
    expect((await call(api.port, 'PUT', '/_local/clock', { body: '{}' })).status).toBe(405)
  })

  it('is no route of the API: AWS has no such path', () => {
    expect(matchRoute('POST', '/_local/clock')).toBeUndefined()
    expect(ROUTES.filter((r) => r.routeKey.includes('/_local'))).toEqual([])
  })
})
