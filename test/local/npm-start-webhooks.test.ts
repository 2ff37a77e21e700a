import { randomUUID } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { WEBHOOK_EVENT_KINDS } from '../../functions/domain/webhooks'
import {
  callServer,
  memberToken,
  type NpmStartSession,
  startNpmStartSession,
} from '../support/npm-start-session'
import { drainNpmStart } from '../support/pipeline'
import { selfSignedCert } from '../support/self-signed-cert'

/**
 * Issue 21's "Done when", against a real `npm start -- --in-memory` (its stream poller, local
 * Webhooks queue and sender, the same code as the Lambda functions) and real receivers on loopback
 * that verify every delivery with the `standardwebhooks` package, an implementation we did not
 * write: an http one for TEST endpoints, and an https one (a certificate made for this run, trusted
 * by the server through Node's own NODE_EXTRA_CA_CERTS) for LIVE endpoints, which must be https.
 * The endpoints are managed through the management API as the console does, by an admin signed in
 * at the Cognito emulator; the state changes are made through the grant API with the seeded keys
 * (TEST magic addresses drive a grant to accepted, rejected, expired or a bounce).
 */

type Delivery = {
  path: string
  headers: Record<string, string>
  body: string
  receivedAt: number
  payload: { type: string; timestamp: string; data: Record<string, unknown> }
}

/** A receiver: records every request; `answer` decides each one's status by path and count. */
const receiver = (
  make: (
    handler: (req: IncomingMessage, res: import('node:http').ServerResponse) => void,
  ) => Server,
) => {
  const deliveries: Delivery[] = []
  const counts = new Map<string, number>()
  const answers = new Map<string, (n: number) => number>()
  const server = make((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const path = req.url ?? '/'
      const n = (counts.get(path) ?? 0) + 1
      counts.set(path, n)
      const body = Buffer.concat(chunks).toString('utf8')
      deliveries.push({
        path,
        headers: Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, String(v)]),
        ) as Record<string, string>,
        body,
        receivedAt: Date.now(),
        payload: JSON.parse(body),
      })
      const status = answers.get(path)?.(n) ?? 200
      res.writeHead(status, { 'content-type': 'text/plain' })
      res.end(status === 200 ? 'ok' : `status ${status}`)
    })
  })
  return {
    server,
    deliveries,
    answer: (path: string, decide: (n: number) => number) => answers.set(path, decide),
    listen: () =>
      new Promise<number>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
      ),
  }
}

let server: NpmStartSession
let admin: string
let viewer: string
let dir: string
const plain = receiver((h) => createHttpServer(h))
let tls: ReturnType<typeof receiver>
let plainPort: number
let tlsPort: number

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vs-webhooks-cert-'))
  // A certificate for `localhost`, made for this run: no key is a fixture.
  const pem = selfSignedCert({ dns: ['localhost'] })
  writeFileSync(join(dir, 'cert.pem'), pem.cert)
  tls = receiver((h) => createHttpsServer(pem, h))
  ;[plainPort, tlsPort] = await Promise.all([plain.listen(), tls.listen()])
  server = await startNpmStartSession('vs-webhooks-', {
    NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem'),
  })
  ;[admin, viewer] = await Promise.all([
    memberToken(server, 'admin'),
    memberToken(server, 'viewer'),
  ])
}, 240_000)

afterAll(async () => {
  plain.server.closeAllConnections?.()
  tls?.server.closeAllConnections?.()
  await Promise.all([
    new Promise((r) => plain.server.close(r)),
    tls ? new Promise((r) => tls.server.close(r)) : undefined,
  ])
})

const base = () => `/manage/issuers/${server.seed.issuerId}/webhook-endpoints`
const asAdmin = (method: string, path: string, body?: unknown) =>
  callServer(server, { token: admin }, method, path, body)

const createEndpoint = async (input: {
  url: string
  mode: 'TEST' | 'LIVE'
  kinds?: readonly string[]
}) => {
  const made = await asAdmin('POST', base(), {
    url: input.url,
    mode: input.mode,
    kinds: input.kinds ?? WEBHOOK_EVENT_KINDS,
  })
  expect(made.status).toBe(201)
  return made.body as { endpointId: string; secret: string }
}

/**
 * Waits until `find` finds something in the deliveries (`what` names it). No deadline of its own:
 * how soon a delivery comes depends on the machine, that it comes does not (the test's timeout
 * ends a wait for one that never comes).
 */
const arrived = async <T>(find: () => T | undefined, _what: string) => {
  for (;;) {
    const found = find()
    if (found !== undefined) return found
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** The Standard Webhooks check a receiver makes: throws unless the signature and time are right. */
const verify = (secret: string, delivery: Delivery) =>
  new Webhook(secret).verify(delivery.body, {
    'webhook-id': delivery.headers['webhook-id'] as string,
    'webhook-timestamp': delivery.headers['webhook-timestamp'] as string,
    'webhook-signature': delivery.headers['webhook-signature'] as string,
  })

const grant = async (mode: 'TEST' | 'LIVE', email: string, amount = 1) => {
  const made = await callServer(
    server,
    { apiKey: server.seed.keys[mode] },
    'POST',
    `/programs/${server.seed.programs[mode]}/grant-tokens`,
    { recipient: { email }, reason: 'Webhook test', amount },
    { 'idempotency-key': randomUUID() },
  )
  expect(made.status).toBe(201)
  return (made.body as { id: string }).id
}

const ofGrant = (path: string, grantId: string, type: string) => () =>
  plain.deliveries.find(
    (d) => d.path === path && d.payload.type === type && d.payload.data.grantId === grantId,
  )

describe('webhooks under npm start', () => {
  let all: { endpointId: string; secret: string }
  let live: { endpointId: string; secret: string }

  beforeAll(async () => {
    all = await createEndpoint({ url: `http://127.0.0.1:${plainPort}/all`, mode: 'TEST' })
    live = await createEndpoint({ url: `https://localhost:${tlsPort}/live`, mode: 'LIVE' })
  }, 60_000)

  it('delivers every event kind, signed and verifiable, after the state change that causes it', async () => {
    const program = `/manage/issuers/${server.seed.issuerId}/programs/${server.seed.programs.TEST}`
    // Every attempt of this test's events is after this (a signature's time is real time).
    const before = Date.now()
    // program.pool_low: the seeded pool of 1,000,000 crosses 999,995 with the first grant of 10.
    const settings = await asAdmin('PATCH', `${program}/offer-settings`, {
      poolLowThreshold: 999_995,
    })
    expect(settings.status).toBe(200)

    const offered = await grant('TEST', 'ann@example.com', 10)
    // `offered`: the recipient identified and was found eligible; TEST's move call stands in.
    const moved = await callServer(
      server,
      { apiKey: server.seed.keys.TEST },
      'POST',
      `/programs/${server.seed.programs.TEST}/grants/${offered}/test-transition`,
      { to: 'offered' },
    )
    expect(moved.status).toBe(200)
    const accepted = await grant('TEST', `accept+${randomUUID().slice(0, 6)}@example.com`)
    const declined = await grant('TEST', `decline+${randomUUID().slice(0, 6)}@example.com`)
    const expired = await grant('TEST', `expire+${randomUUID().slice(0, 6)}@example.com`)
    const bounced = await grant('TEST', `bounce+${randomUUID().slice(0, 6)}@example.com`)
    const canceled = await grant('TEST', 'bob@example.com')
    const cancel = await callServer(
      server,
      { apiKey: server.seed.keys.TEST },
      'POST',
      `/programs/${server.seed.programs.TEST}/grants/${canceled}/cancel`,
    )
    expect(cancel.status).toBe(200)
    const batch = await callServer(
      server,
      { token: admin },
      'POST',
      `${program}/grant-batches`,
      { csv: 'email,amount\ncarol@example.com,1\ndan@example.com,2\n', dryRun: false },
      { 'idempotency-key': randomUUID() },
    )
    expect(batch.status).toBe(202)
    const batchId = (batch.body as { id: string }).id
    // program.value_changed (issue 32): a value of the seeded program's share set.
    const valued = await asAdmin('POST', `${program}/values`, {
      amount: '12.50',
      currency: 'EUR',
      asOf: '2026-01-01',
    })
    expect(valued.status).toBe(201)
    const valueId = (valued.body as { id: string }).id
    // The integrator's read shows it at once (the head holds the current value).
    const read = await callServer(
      server,
      { apiKey: server.seed.keys.TEST },
      'GET',
      `/programs/${server.seed.programs.TEST}`,
    )
    expect(read.body).toMatchObject({ tokenValue: '12.50', tokenValueCurrency: 'EUR' })

    const wanted: [string, () => Delivery | undefined][] = [
      ['grant.created', ofGrant('/all', offered, 'grant.created')],
      ['grant.offered', ofGrant('/all', offered, 'grant.offered')],
      ['grant.accepted', ofGrant('/all', accepted, 'grant.accepted')],
      ['grant.rejected', ofGrant('/all', declined, 'grant.rejected')],
      ['grant.expired', ofGrant('/all', expired, 'grant.expired')],
      ['grant.delivery_failed', ofGrant('/all', bounced, 'grant.delivery_failed')],
      ['grant.canceled', ofGrant('/all', canceled, 'grant.canceled')],
      [
        'batch.completed',
        () =>
          plain.deliveries.find(
            (d) => d.payload.type === 'batch.completed' && d.payload.data.batchId === batchId,
          ),
      ],
      [
        'program.pool_low',
        () =>
          plain.deliveries.find(
            (d) =>
              d.payload.type === 'program.pool_low' &&
              d.payload.data.programId === server.seed.programs.TEST,
          ),
      ],
      [
        'program.value_changed',
        () =>
          plain.deliveries.find(
            (d) => d.payload.type === 'program.value_changed' && d.payload.data.valueId === valueId,
          ),
      ],
    ]
    expect(wanted.map(([kind]) => kind).sort()).toEqual([...WEBHOOK_EVENT_KINDS].sort())
    for (const [kind, find] of wanted) {
      const delivery = await arrived(find, kind)
      expect(() => verify(all.secret, delivery)).not.toThrow()
      expect(delivery.payload.data.mode).toBe('TEST')
      // Signed at the attempt's own time (whole seconds): after its cause, before its arrival.
      // No bound on how long that took, which is the machine's business.
      const signedAt = Number(delivery.headers['webhook-timestamp']) * 1000
      expect(signedAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000)
      expect(signedAt).toBeLessThanOrEqual(delivery.receivedAt)
    }
    // The rejection says why; the payloads carry the address the integrator sent and no more.
    expect(
      (await arrived(wanted[3]?.[1] as () => Delivery | undefined, 'rejected')).payload.data,
    ).toMatchObject({ state: 'rejected', rejectionReason: 'declined' })
    for (const d of plain.deliveries) {
      expect(d.body).not.toMatch(/dateOfBirth|birth|country/i)
    }
    // Fired once per crossing: later grants below the threshold fire no second pool_low.
    await grant('TEST', 'erin@example.com')
    await arrived(() => plain.deliveries.find((d) => d.body.includes('erin@example.com')), 'erin')
    expect(plain.deliveries.filter((d) => d.payload.type === 'program.pool_low')).toHaveLength(1)
  }, 180_000)

  it('a receiver failing twice then answering 200 gets the same webhook-id three times', async () => {
    plain.answer('/flaky', (n) => (n <= 2 ? 500 : 200))
    const flaky = await createEndpoint({
      url: `http://127.0.0.1:${plainPort}/flaky`,
      mode: 'TEST',
      kinds: ['batch.completed'],
    })
    const test = await asAdmin('POST', `${base()}/${flaky.endpointId}/test`)
    expect(test.status).toBe(202)
    // The first retry comes after 5 s; the second after 5 minutes: npm start's clock moves both.
    // Each move waits for the pipeline to have scheduled the retry (an attempt is seen by the
    // receiver before the sender has read its answer), so no retry is left on real time.
    const attempt = async (n: number, advanceMs: number) => {
      await drainNpmStart(server.baseUrl)
      const moved = await fetch(`${server.baseUrl}/_local/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advanceMs }),
      })
      expect(moved.status).toBe(200)
      await arrived(
        () => (plain.deliveries.filter((d) => d.path === '/flaky').length >= n ? true : undefined),
        `attempt ${n}`,
      )
    }
    await arrived(() => plain.deliveries.find((d) => d.path === '/flaky'), 'first attempt')
    await attempt(2, 6_000)
    await attempt(3, 6 * 60_000)
    const attempts = plain.deliveries.filter((d) => d.path === '/flaky')
    expect(attempts).toHaveLength(3)
    expect(new Set(attempts.map((d) => d.headers['webhook-id'])).size).toBe(1)
    expect(attempts[0]?.headers['webhook-id']).toBe((test.body as { messageId: string }).messageId)
    for (const d of attempts) expect(() => verify(flaky.secret, d)).not.toThrow()
    // The delivery log shows the three attempts, to a viewer too.
    const log = await callServer(
      server,
      { token: viewer },
      'GET',
      `${base()}/${flaky.endpointId}/messages`,
    )
    expect(log.status).toBe(200)
    const [message] = (
      log.body as {
        messages: { status: string; attempts: { status?: number; latencyMs: number }[] }[]
      }
    ).messages
    expect(message?.status).toBe('delivered')
    expect(message?.attempts.map((a) => a.status)).toEqual([500, 500, 200])
    for (const a of message?.attempts ?? []) expect(a.latencyMs).toBeGreaterThanOrEqual(0)
  }, 120_000)

  it('410 Gone disables the endpoint at once', async () => {
    plain.answer('/gone', () => 410)
    const gone = await createEndpoint({ url: `http://127.0.0.1:${plainPort}/gone`, mode: 'TEST' })
    await asAdmin('POST', `${base()}/${gone.endpointId}/test`)
    await arrived(() => plain.deliveries.find((d) => d.path === '/gone'), '410')
    // The sender has read the 410 once the pipeline is idle: no polling against a deadline.
    await drainNpmStart(server.baseUrl)
    const read = await asAdmin('GET', `${base()}/${gone.endpointId}`)
    expect(read.body).toMatchObject({ enabled: false, disabledReason: 'gone' })
    // Disabled: the next event is not sent to it.
    const before = plain.deliveries.filter((d) => d.path === '/gone').length
    const id = await grant('TEST', 'after-gone@example.com')
    await arrived(ofGrant('/all', id, 'grant.created'), 'the next event elsewhere')
    // Everything written so far has gone through (not a second of waiting): none went to /gone.
    await drainNpmStart(server.baseUrl)
    expect(plain.deliveries.filter((d) => d.path === '/gone')).toHaveLength(before)
  }, 60_000)

  it('a rotated secret verifies with either secret during the overlap; replay re-sends the same message', async () => {
    const rotating = await createEndpoint({
      url: `http://127.0.0.1:${plainPort}/rotating`,
      mode: 'TEST',
      kinds: ['batch.completed'],
    })
    const rotated = await asAdmin('POST', `${base()}/${rotating.endpointId}/rotate-secret`)
    expect(rotated.status).toBe(200)
    const next = (rotated.body as { secret: string }).secret
    expect(next).toMatch(/^whsec_/)
    expect(next).not.toBe(rotating.secret)
    const test = await asAdmin('POST', `${base()}/${rotating.endpointId}/test`)
    const messageId = (test.body as { messageId: string }).messageId
    const first = await arrived(
      () => plain.deliveries.find((d) => d.path === '/rotating'),
      'rotated',
    )
    expect(first.headers['webhook-signature']?.split(' ')).toHaveLength(2)
    expect(() => verify(rotating.secret, first)).not.toThrow()
    expect(() => verify(next, first)).not.toThrow()

    const replay = await asAdmin(
      'POST',
      `${base()}/${rotating.endpointId}/messages/${messageId}/replay`,
    )
    expect(replay.status).toBe(202)
    const again = await arrived(
      () => plain.deliveries.filter((d) => d.path === '/rotating')[1],
      'the replay',
    )
    expect(again.headers['webhook-id']).toBe(messageId)
    expect(again.body).toBe(first.body)
    expect(() => verify(next, again)).not.toThrow()

    // Every message since a time: the test message once more.
    const since = await asAdmin('POST', `${base()}/${rotating.endpointId}/replay`, {
      since: new Date(Date.now() - 60 * 60_000).toISOString(),
    })
    expect(since.status).toBe(202)
    const third = await arrived(
      () => plain.deliveries.filter((d) => d.path === '/rotating')[2],
      'the replay since',
    )
    expect(third.headers['webhook-id']).toBe(messageId)
  }, 60_000)

  it('TEST events never reach a LIVE endpoint; LIVE ones arrive there, over https, verified', async () => {
    const liveGrant = await grant('LIVE', 'live-ann@example.com')
    const delivered = await arrived(
      () =>
        tls.deliveries.find(
          (d) => d.payload.type === 'grant.created' && d.payload.data.grantId === liveGrant,
        ),
      'the LIVE grant',
    )
    expect(() => verify(live.secret, delivered)).not.toThrow()
    // By now every TEST event of the tests above has been delivered to /all.
    expect(tls.deliveries.length).toBeGreaterThan(0)
    for (const d of tls.deliveries) expect(d.payload.data.mode).toBe('LIVE')
    for (const d of plain.deliveries) expect(d.payload.data.mode ?? 'TEST').toBe('TEST')
    // A LIVE endpoint must be https, here too.
    const refused = await asAdmin('POST', base(), {
      url: `http://127.0.0.1:${plainPort}/live-plain`,
      mode: 'LIVE',
      kinds: ['grant.created'],
    })
    expect(refused.status).toBe(400)
  }, 60_000)

  it('a value set on the seeded LIVE program shows in the integrator GET and the balance, and reaches the LIVE endpoint as program.value_changed, verified (issue 32)', async () => {
    const live$ = { apiKey: server.seed.keys.LIVE }
    const program = `/programs/${server.seed.programs.LIVE}`
    const email = 'live-value@example.com'
    await grant('LIVE', email, 4)
    const set = await asAdmin(
      'POST',
      `/manage/issuers/${server.seed.issuerId}/programs/${server.seed.programs.LIVE}/values`,
      { amount: '7.25', currency: 'USD', asOf: '2026-02-01', method: 'Board estimate' },
    )
    expect(set.status).toBe(201)
    const valueId = (set.body as { id: string }).id
    const shown = { tokenValue: '7.25', tokenValueCurrency: 'USD' }
    expect((await callServer(server, live$, 'GET', program)).body).toMatchObject({
      ...shown,
      tokenValueCalculatedDate: '2026-02-01',
    })
    // Nothing accepted yet: the balance's value is exactly zero at the current value.
    const balance = await callServer(
      server,
      live$,
      'GET',
      `${program}/recipients/${encodeURIComponent(email)}/balance`,
    )
    expect(balance.body).toMatchObject({ ...shown, accepted: 0, acceptedValue: '0.00' })
    const delivery = await arrived(
      () =>
        tls.deliveries.find(
          (d) => d.payload.type === 'program.value_changed' && d.payload.data.valueId === valueId,
        ),
      'the LIVE value',
    )
    expect(() => verify(live.secret, delivery)).not.toThrow()
    expect(delivery.payload.data).toMatchObject({
      programId: server.seed.programs.LIVE,
      mode: 'LIVE',
      tokenValue: '7.25',
      tokenValueCurrency: 'USD',
      tokenValueCalculatedDate: '2026-02-01',
      current: true,
    })
    // The TEST receiver never sees a LIVE program's value.
    expect(
      plain.deliveries.some(
        (d) => d.payload.type === 'program.value_changed' && d.payload.data.valueId === valueId,
      ),
    ).toBe(false)
  }, 60_000)

  it('refuses private addresses: only loopback is allowed under npm start', async () => {
    const metadata = await createEndpoint({
      url: 'http://169.254.169.254/latest/meta-data/',
      mode: 'TEST',
      kinds: ['batch.completed'],
    })
    const test = await asAdmin('POST', `${base()}/${metadata.endpointId}/test`)
    expect(test.status).toBe(202)
    // Once the pipeline is idle, the attempt is made and logged: no polling against a deadline.
    await drainNpmStart(server.baseUrl)
    const log = await asAdmin('GET', `${base()}/${metadata.endpointId}/messages`)
    const [message] = (log.body as { messages: { attempts: { error?: string }[] }[] }).messages
    expect(message?.attempts[0]?.error).toBe('refused_address')
  }, 60_000)
})
