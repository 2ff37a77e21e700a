import { randomBytes } from 'node:crypto'
import { GetCommand } from '@aws-sdk/lib-dynamodb'
import type { Runtime } from '../../functions/composition'
import {
  WEBHOOK_ENDPOINT_ID,
  WEBHOOK_LIMITS,
  WEBHOOK_MESSAGE_ID,
  type WebhookMessageRecord,
  type WebhookQueueMessage,
  webhookMessageId,
} from '../../functions/domain/webhooks'
import { localSecretBox } from '../../functions/runtime/secret-box'
import { DynamoDbWebhookStore } from '../../functions/stores/webhooks.dynamodb'
import { LOCAL_CONSUMERS } from '../../local/consumer-factories'
import type { ConsumerFactories } from '../../local/pipeline'
import {
  type Call,
  expectProblem,
  type Issuer,
  newIssuer,
  queryAll,
  scanAll,
  startApi,
} from '../support/api'
import { contractCheck } from '../support/contract-check'
import { type Person, signUpPerson } from '../support/identity'
import { config, documentClient, dynamodb, runtime, wallClock } from '../support/runtime'
import { addMember, auditLog, declaredAccess, manageCall, recordAccess } from './grants-support'

/**
 * The management API of an issuer's webhook endpoints, through the local server with real access
 * tokens, DynamoDB Local and the local Webhooks queue (no sender plugged in: this file reads what
 * the routes put on the queue itself). Every answer is held against openapi.json.
 */

// The local key that seals secrets (a stage seals with KMS), unless the run already has one.
const webhooks = {
  ...config.webhooks,
  localSecretKey: config.webhooks.localSecretKey ?? randomBytes(32).toString('base64'),
}
const testRuntime: Runtime = { ...runtime, config: { ...config, webhooks } }

// Every consumer npm start plugs in but the webhook sender: its queue keeps what the routes send.
const consumers = Object.fromEntries(
  Object.entries(LOCAL_CONSUMERS).filter(([id]) => id !== 'WebhookSender'),
) as ConsumerFactories

let api: Awaited<ReturnType<typeof startApi>>
let admin: Person
let viewer: Person
let adminOfB: Person

beforeAll(async () => {
  api = await startApi({ runtime: testRuntime, pipeline: { consumers } })
  ;[admin, viewer, adminOfB] = (await Promise.all([
    signUpPerson(),
    signUpPerson(),
    signUpPerson(),
  ])) as [Person, Person, Person]
})
afterAll(async () => {
  await api.close()
})

const issuerWith = async () => {
  const issuer = await newIssuer()
  await Promise.all([
    addMember(issuer.issuerId, admin, 'admin'),
    addMember(issuer.issuerId, viewer, 'viewer'),
  ])
  return issuer
}

const BASE = '/manage/issuers/{issuerId}/webhook-endpoints'
const ONE = `${BASE}/{endpointId}`
const contract = contractCheck()
/** The call, checked against its operation in openapi.json. */
const documented = (path: string, method: string, answer: Call) => {
  contract.check(path, method.toLowerCase(), answer)
  return answer
}
const pathOf = (issuer: Issuer, endpointId?: string, rest = '') =>
  `/manage/issuers/${issuer.issuerId}/webhook-endpoints${endpointId ? `/${endpointId}` : ''}${rest}`

const call = async (
  person: Person,
  method: string,
  issuer: Issuer,
  template: string,
  options: { endpointId?: string; rest?: string; body?: unknown; query?: string } = {},
) =>
  documented(
    template,
    method,
    await manageCall(
      api.baseUrl,
      person,
      method,
      `${pathOf(issuer, options.endpointId, options.rest)}${options.query ?? ''}`,
      options.body === undefined ? {} : { body: options.body },
    ),
  )

const create = (person: Person, issuer: Issuer, body: Record<string, unknown>) =>
  call(person, 'POST', issuer, BASE, { body })
const validEndpoint = (overrides: Record<string, unknown> = {}) => ({
  url: 'https://hooks.example.com/in?token=abc',
  mode: 'TEST',
  kinds: ['grant.accepted', 'grant.rejected'],
  ...overrides,
})

/** Every item of the webhooks table that belongs to the issuer's endpoints (their partition). */
const endpointItems = (issuerId: string) =>
  queryAll({
    TableName: config.tables.webhooks,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': `endpoints#${issuerId}` },
    ConsistentRead: true,
  })
/** The issuer's one endpoint item's stored secrets. */
const storedSecrets = async (issuerId: string) => {
  const [item] = await endpointItems(issuerId)
  return (item?.secrets ?? []) as { sealed: string; createdAt: string; expiresAt?: string }[]
}
const messageItems = (endpointId: string) =>
  queryAll({
    TableName: config.tables.webhooks,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': `messages#${endpointId}` },
    ConsistentRead: true,
  })

/** What the routes put on the Webhooks queue since the last call (taken off it). */
const queued = (): WebhookQueueMessage[] => {
  const queue = api.pipeline?.queues.Webhooks
  if (!queue) throw new Error('no Webhooks queue')
  const taken: WebhookQueueMessage[] = []
  for (;;) {
    const batch = queue.receive(10)
    if (batch.length === 0) return taken
    for (const message of batch) {
      taken.push(JSON.parse(message.body) as WebhookQueueMessage)
      queue.delete(message.receiptHandle)
    }
  }
}

/** Runs `act` and asserts the issuer's endpoints, its audit log and the queue are as they were. */
const expectNothingWritten = async (issuer: Issuer, act: () => Promise<void>) => {
  queued()
  const before = {
    items: await endpointItems(issuer.issuerId),
    audit: await auditLog(issuer.issuerId),
  }
  await act()
  expect(await endpointItems(issuer.issuerId)).toEqual(before.items)
  expect((await auditLog(issuer.issuerId)).length).toBe(before.audit.length)
  expect(queued()).toEqual([])
}

const HOUR = 3600_000

describe('endpoints', () => {
  it('creates an endpoint with its secret shown once; reads, lists, updates and deletes it; never stores or shows the secret again', async () => {
    const issuer = await issuerWith()
    const created = await create(admin, issuer, {
      ...validEndpoint(),
      description: '  Our CRM  ',
    })
    expect(created.status).toBe(201)
    expect(created.headers.get('cache-control')).toBe('no-store')
    const secret = created.body.secret as string
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
    const endpointId = created.body.endpointId as string
    expect(endpointId).toMatch(WEBHOOK_ENDPOINT_ID)
    expect(created.body).toMatchObject({
      mode: 'TEST',
      url: 'https://hooks.example.com/in?token=abc',
      description: 'Our CRM',
      kinds: ['grant.accepted', 'grant.rejected'],
      enabled: true,
    })

    // The table holds the secret sealed only: no item anywhere holds `whsec_` or the secret.
    const all = await scanAll({ TableName: config.tables.webhooks, ConsistentRead: true })
    const stored = JSON.stringify(all)
    expect(stored).not.toContain('whsec_')
    expect(stored).not.toContain(secret.slice('whsec_'.length))
    expect(await storedSecrets(issuer.issuerId)).toEqual([
      { sealed: expect.any(String), createdAt: created.body.createdAt },
    ])
    // What is stored opens, with the endpoint's id as its context, to exactly the secret shown.
    const [stored1] = await storedSecrets(issuer.issuerId)
    const box = localSecretBox(webhooks.localSecretKey)
    expect(await box.open(stored1?.sealed as string, { endpointId })).toBe(secret)

    const read = await call(viewer, 'GET', issuer, ONE, { endpointId })
    expect(read.status).toBe(200)
    const { secret: _, ...view } = created.body
    // A viewer's view: the query's values masked (the next test).
    expect(read.body).toEqual({ ...view, url: 'https://hooks.example.com/in?token=****' })
    expect(read.text).not.toContain('whsec_')
    expect(read.text).not.toContain('sealed')

    const second = await create(
      admin,
      issuer,
      validEndpoint({ mode: 'LIVE', kinds: ['batch.completed'] }),
    )
    expect(second.status).toBe(201)
    const list = await call(viewer, 'GET', issuer, BASE)
    expect(list.status).toBe(200)
    expect((list.body.endpoints as { endpointId: string }[]).map((e) => e.endpointId)).toEqual([
      endpointId,
      second.body.endpointId,
    ])
    expect(list.text).not.toContain('whsec_')
    const live = await call(viewer, 'GET', issuer, BASE, { query: '?mode=LIVE' })
    expect((live.body.endpoints as { endpointId: string }[]).map((e) => e.endpointId)).toEqual([
      second.body.endpointId,
    ])
    expectProblem(
      await call(viewer, 'GET', issuer, BASE, { query: '?mode=live' }),
      400,
      'validation_failed',
    )
    expectProblem(
      await call(viewer, 'GET', issuer, BASE, { query: '?mdoe=LIVE' }),
      400,
      'validation_failed',
    )

    const disabled = await call(admin, 'PATCH', issuer, ONE, {
      endpointId,
      body: { enabled: false, kinds: ['grant.created'], description: null },
    })
    expect(disabled.status).toBe(200)
    expect(disabled.body).toMatchObject({
      enabled: false,
      disabledReason: 'manual',
      kinds: ['grant.created'],
    })
    expect(disabled.body.description).toBeUndefined()
    expect(disabled.body.disabledAt).toEqual(expect.any(String))
    // Nothing is sent to a disabled endpoint: a test or a replay says so, and writes nothing.
    await expectNothingWritten(issuer, async () => {
      expectProblem(
        await call(admin, 'POST', issuer, `${ONE}/test`, { endpointId, rest: '/test' }),
        409,
        'webhook_endpoint_disabled',
      )
      expectProblem(
        await call(admin, 'POST', issuer, `${ONE}/replay`, {
          endpointId,
          rest: '/replay',
          body: { since: new Date(Date.now() - HOUR).toISOString() },
        }),
        409,
        'webhook_endpoint_disabled',
      )
    })
    const enabled = await call(admin, 'PATCH', issuer, ONE, {
      endpointId,
      body: { enabled: true, url: 'http://localhost:4000/hooks' },
    })
    expect(enabled.status).toBe(200)
    expect(enabled.body).toMatchObject({ enabled: true, url: 'http://localhost:4000/hooks' })
    expect(enabled.body.disabledReason).toBeUndefined()
    expect(enabled.body.disabledAt).toBeUndefined()
    expect(enabled.text).not.toContain('whsec_')

    const deleted = await call(admin, 'DELETE', issuer, ONE, { endpointId })
    expect(deleted.status).toBe(204)
    expectProblem(
      await call(viewer, 'GET', issuer, ONE, { endpointId }),
      404,
      'webhook_endpoint_not_found',
    )
    expectProblem(
      await call(admin, 'DELETE', issuer, ONE, { endpointId }),
      404,
      'webhook_endpoint_not_found',
    )

    // Every write audited, with the host (never the path, query or secret).
    const entries = (await auditLog(issuer.issuerId)).filter((e) => e.action.startsWith('webhook.'))
    expect(entries.map((e) => e.action).sort()).toEqual([
      'webhook.create',
      'webhook.create',
      'webhook.delete',
      'webhook.update',
      'webhook.update',
    ])
    const creation = entries.find(
      (e) => e.target.id === endpointId && e.action === 'webhook.create',
    )
    expect(creation).toMatchObject({
      actor: { kind: 'person', sub: admin.sub },
      target: { type: 'webhook_endpoint', id: endpointId },
      details: { mode: 'TEST', host: 'hooks.example.com', kinds: 'grant.accepted,grant.rejected' },
    })
    const log = JSON.stringify(entries)
    expect(log).not.toContain('whsec_')
    expect(log).not.toContain('token=abc')
  })

  it("lets viewers read and not write; hides another issuer's endpoints", async () => {
    const issuer = await issuerWith()
    const other = await newIssuer()
    await addMember(other.issuerId, adminOfB, 'admin')
    const created = await create(admin, issuer, validEndpoint())
    const endpointId = created.body.endpointId as string

    await expectNothingWritten(issuer, async () => {
      expectProblem(await create(viewer, issuer, validEndpoint()), 403, 'forbidden')
      expectProblem(
        await call(viewer, 'PATCH', issuer, ONE, { endpointId, body: { enabled: false } }),
        403,
        'forbidden',
      )
      expectProblem(await call(viewer, 'DELETE', issuer, ONE, { endpointId }), 403, 'forbidden')
      expectProblem(
        await call(viewer, 'POST', issuer, `${ONE}/rotate-secret`, {
          endpointId,
          rest: '/rotate-secret',
        }),
        403,
        'forbidden',
      )
      expectProblem(
        await call(viewer, 'POST', issuer, `${ONE}/test`, { endpointId, rest: '/test' }),
        403,
        'forbidden',
      )
      expectProblem(
        await call(viewer, 'POST', issuer, `${ONE}/replay`, {
          endpointId,
          rest: '/replay',
          body: { since: new Date().toISOString() },
        }),
        403,
        'forbidden',
      )
    })
    // The other issuer's admin: not a member here (404 issuer), and the id under its own issuer is unknown.
    expectProblem(await call(adminOfB, 'GET', issuer, ONE, { endpointId }), 404, 'issuer_not_found')
    await expectNothingWritten(issuer, async () => {
      expectProblem(
        await call(adminOfB, 'GET', other, ONE, { endpointId }),
        404,
        'webhook_endpoint_not_found',
      )
      expectProblem(
        await call(adminOfB, 'PATCH', other, ONE, { endpointId, body: { enabled: false } }),
        404,
        'webhook_endpoint_not_found',
      )
      expectProblem(
        await call(adminOfB, 'DELETE', other, ONE, { endpointId }),
        404,
        'webhook_endpoint_not_found',
      )
      expectProblem(
        await call(adminOfB, 'POST', other, `${ONE}/test`, { endpointId, rest: '/test' }),
        404,
        'webhook_endpoint_not_found',
      )
      expectProblem(
        await call(adminOfB, 'GET', other, `${ONE}/messages`, { endpointId, rest: '/messages' }),
        404,
        'webhook_endpoint_not_found',
      )
      expect((await call(adminOfB, 'GET', other, BASE)).body).toEqual({ endpoints: [] })
      expectProblem(
        await call(viewer, 'GET', issuer, ONE, { endpointId: 'we_nope' }),
        404,
        'webhook_endpoint_not_found',
      )
    })
  })

  it("shows a viewer each query value of an endpoint's URL masked, owners and admins the whole URL", async () => {
    const issuer = await issuerWith()
    const owner = await signUpPerson()
    await addMember(issuer.issuerId, owner, 'owner')
    const urls = [
      'https://hooks.example.com/in?token=s3cr3t-a&v=2',
      'https://hooks.example.com/bare?s3cr3t-b',
      'https://hooks.example.com/plain',
    ]
    const ids: string[] = []
    for (const url of urls) {
      const created = await create(admin, issuer, validEndpoint({ url }))
      expect(created.body.url).toBe(url)
      ids.push(created.body.endpointId as string)
    }
    const masked = [
      'https://hooks.example.com/in?token=****&v=****',
      'https://hooks.example.com/bare?****',
      'https://hooks.example.com/plain',
    ]
    const urlsOf = (list: Call) => (list.body.endpoints as { url: string }[]).map((e) => e.url)

    const list = await call(viewer, 'GET', issuer, BASE)
    expect(urlsOf(list)).toEqual(masked)
    expect(list.text).not.toContain('s3cr3t')
    for (const [i, endpointId] of ids.entries()) {
      const one = await call(viewer, 'GET', issuer, ONE, { endpointId })
      expect(one.body.url).toBe(masked[i])
    }
    // The delivery log a viewer reads carries no URL either.
    const test = await call(admin, 'POST', issuer, `${ONE}/test`, {
      endpointId: ids[0] as string,
      rest: '/test',
    })
    expect(test.status).toBe(202)
    queued()
    const log = await call(viewer, 'GET', issuer, `${ONE}/messages`, {
      endpointId: ids[0] as string,
      rest: '/messages',
    })
    expect(log.body.messages).toHaveLength(1)
    expect(log.text).not.toContain('s3cr3t')

    for (const person of [admin, owner]) {
      expect(urlsOf(await call(person, 'GET', issuer, BASE))).toEqual(urls)
      const one = await call(person, 'GET', issuer, ONE, { endpointId: ids[0] as string })
      expect(one.body.url).toBe(urls[0])
    }
  })

  it('refuses bad input with the field named, and writes nothing', async () => {
    const issuer = await issuerWith()
    const refused = async (body: Record<string, unknown>, field: string) => {
      await expectNothingWritten(issuer, async () => {
        const answer = await create(admin, issuer, body)
        expectProblem(answer, 400, 'validation_failed')
        expect((answer.body.errors as { field: string }[]).map((e) => e.field)).toContain(field)
      })
    }
    await refused(validEndpoint({ url: 'ftp://hooks.example.com/in' }), 'url')
    await refused(validEndpoint({ url: 'hooks.example.com/in' }), 'url')
    await refused(validEndpoint({ url: 'https://user:pw@hooks.example.com/in' }), 'url')
    await refused(
      validEndpoint({
        url: `https://hooks.example.com/${'a'.repeat(WEBHOOK_LIMITS.urlMaxLength)}`,
      }),
      'url',
    )
    await refused(validEndpoint({ mode: 'LIVE', url: 'http://hooks.example.com/in' }), 'url')
    await refused(validEndpoint({ mode: 'live' }), 'mode')
    await refused(validEndpoint({ kinds: ['grant.accepted', 'grant.exploded'] }), 'kinds[1]')
    await refused(validEndpoint({ kinds: ['grant.accepted', 'grant.accepted'] }), 'kinds[1]')
    await refused(validEndpoint({ kinds: ['webhook.test'] }), 'kinds[0]')
    await refused(validEndpoint({ kinds: [] }), 'kinds')
    await refused(validEndpoint({ kinds: 'grant.accepted' }), 'kinds')
    await refused(
      validEndpoint({ description: 'x'.repeat(WEBHOOK_LIMITS.descriptionMaxLength + 1) }),
      'description',
    )
    await refused({ ...validEndpoint(), secret: 'whsec_mine' }, 'secret')

    // A PATCH: a LIVE endpoint stays https; an empty change is refused.
    const live = await create(admin, issuer, validEndpoint({ mode: 'LIVE' }))
    const endpointId = live.body.endpointId as string
    await expectNothingWritten(issuer, async () => {
      const http = await call(admin, 'PATCH', issuer, ONE, {
        endpointId,
        body: { url: 'http://hooks.example.com/in' },
      })
      expectProblem(http, 400, 'validation_failed')
      expect(http.body.errors).toEqual([
        { field: 'url', message: expect.stringContaining('https') },
      ])
      expectProblem(
        await call(admin, 'PATCH', issuer, ONE, { endpointId, body: {} }),
        400,
        'validation_failed',
      )
      expectProblem(
        await call(admin, 'PATCH', issuer, ONE, { endpointId, body: { enabled: 'yes' } }),
        400,
        'validation_failed',
      )
      expectProblem(
        await call(admin, 'PATCH', issuer, ONE, { endpointId, body: { kinds: [] } }),
        400,
        'validation_failed',
      )
    })
  })

  it(`allows ${WEBHOOK_LIMITS.endpointsPerMode} endpoints per mode, then answers webhook_endpoint_limit`, async () => {
    const issuer = await issuerWith()
    for (let i = 0; i < WEBHOOK_LIMITS.endpointsPerMode; i++) {
      expect(
        (await create(admin, issuer, validEndpoint({ url: `https://h${i}.example.com/` }))).status,
      ).toBe(201)
    }
    await expectNothingWritten(issuer, async () => {
      expectProblem(await create(admin, issuer, validEndpoint()), 409, 'webhook_endpoint_limit')
    })
    // The other mode has its own.
    expect((await create(admin, issuer, validEndpoint({ mode: 'LIVE' }))).status).toBe(201)
  })

  it('holds the limit when creates race past its count, and a delete frees a place', async () => {
    const issuer = await issuerWith()
    const extra = 3
    const answers = await Promise.all(
      Array.from({ length: WEBHOOK_LIMITS.endpointsPerMode + extra }, (_, i) =>
        create(admin, issuer, validEndpoint({ url: `https://race${i}.example.com/` })),
      ),
    )
    const made = answers.filter((a) => a.status === 201)
    expect(made).toHaveLength(WEBHOOK_LIMITS.endpointsPerMode)
    for (const refused of answers.filter((a) => a.status !== 201)) {
      expectProblem(refused, 409, 'webhook_endpoint_limit')
    }
    const endpoints = (await endpointItems(issuer.issuerId)).filter(
      (item) => (item as { endpointId?: string }).endpointId !== undefined,
    )
    expect(endpoints).toHaveLength(WEBHOOK_LIMITS.endpointsPerMode)
    const endpointId = made[0]?.body.endpointId as string
    expect((await call(admin, 'DELETE', issuer, ONE, { endpointId })).status).toBe(204)
    expect((await create(admin, issuer, validEndpoint())).status).toBe(201)
    expectProblem(await create(admin, issuer, validEndpoint()), 409, 'webhook_endpoint_limit')
  })

  it('rotates the secret: a new one shown once, the previous one signing for 24 hours more', async () => {
    const issuer = await issuerWith()
    const created = await create(admin, issuer, validEndpoint())
    const endpointId = created.body.endpointId as string
    const before = Date.now()
    const rotated = await call(admin, 'POST', issuer, `${ONE}/rotate-secret`, {
      endpointId,
      rest: '/rotate-secret',
    })
    expect(rotated.status).toBe(200)
    expect(rotated.headers.get('cache-control')).toBe('no-store')
    expect(rotated.body.secret).toMatch(/^whsec_/)
    expect(rotated.body.secret).not.toBe(created.body.secret)
    const expires = Date.parse(rotated.body.previousSecretExpiresAt as string)
    expect(expires).toBeGreaterThanOrEqual(before + 24 * HOUR - 1000)
    expect(expires).toBeLessThanOrEqual(Date.now() + 24 * HOUR + 1000)
    expect(rotated.body.secretRotatedAt).toEqual(expect.any(String))
    const read = await call(viewer, 'GET', issuer, ONE, { endpointId })
    expect(read.body.previousSecretExpiresAt).toBe(rotated.body.previousSecretExpiresAt)
    expect(read.text).not.toContain('whsec_')

    // Both secrets stored sealed, the new one first; neither in plain anywhere.
    const [item] = await endpointItems(issuer.issuerId)
    const secrets = item?.secrets as { sealed: string; expiresAt?: string }[]
    expect(secrets.map((s) => s.expiresAt)).toEqual([
      undefined,
      rotated.body.previousSecretExpiresAt,
    ])
    const stored = JSON.stringify(
      await scanAll({ TableName: config.tables.webhooks, ConsistentRead: true }),
    )
    expect(stored).not.toContain('whsec_')

    // Rotating again within the overlap keeps both older secrets until they expire; once the
    // clock is past an overlap, that secret is dropped at the next rotation.
    await call(admin, 'POST', issuer, `${ONE}/rotate-secret`, {
      endpointId,
      rest: '/rotate-secret',
    })
    expect((await storedSecrets(issuer.issuerId)).length).toBe(3)
    wallClock.advance(25 * HOUR)
    try {
      const later = await call(admin, 'POST', issuer, `${ONE}/rotate-secret`, {
        endpointId,
        rest: '/rotate-secret',
      })
      expect(later.status).toBe(200)
      expect((await storedSecrets(issuer.issuerId)).length).toBe(2)
    } finally {
      wallClock.reset()
    }
    const rotations = (await auditLog(issuer.issuerId)).filter((e) => e.action === 'webhook.rotate')
    expect(rotations).toHaveLength(3)
    expect(JSON.stringify(rotations)).not.toContain('whsec_')
  })
})

describe('test events, the delivery log and replays', () => {
  it('sends a test event: 202 with its id, the message in the log, its delivery on the Webhooks queue', async () => {
    const issuer = await issuerWith()
    const endpointId = (await create(admin, issuer, validEndpoint())).body.endpointId as string
    queued()
    const sent = await call(admin, 'POST', issuer, `${ONE}/test`, { endpointId, rest: '/test' })
    expect(sent.status).toBe(202)
    const messageId = sent.body.messageId as string
    expect(messageId).toMatch(WEBHOOK_MESSAGE_ID)
    expect(queued()).toEqual([
      {
        kind: 'delivery',
        issuerId: issuer.issuerId,
        endpointId,
        messageId,
        attempt: 0,
        trigger: 'test',
      },
    ])
    const { Item } = await documentClient.send(
      new GetCommand({
        TableName: config.tables.webhooks,
        Key: { pk: `messages#${endpointId}`, sk: messageId },
        ConsistentRead: true,
      }),
    )
    const message = Item as WebhookMessageRecord
    expect(message).toMatchObject({
      messageId,
      endpointId,
      type: 'webhook.test',
      status: 'pending',
      attempts: [],
    })
    expect(JSON.parse(message.body)).toEqual({
      type: 'webhook.test',
      timestamp: message.createdAt,
      data: { endpointId, message: expect.any(String) },
    })
    // The id is the one every message gets from its event and endpoint.
    expect(
      webhookMessageId({ eventId: message.eventId, occurredAt: message.createdAt }, endpointId),
    ).toBe(messageId)
    expect(message.purgeAt).toBeGreaterThan(Date.now() / 1000 + 29 * 86_400)

    const log = await call(viewer, 'GET', issuer, `${ONE}/messages`, {
      endpointId,
      rest: '/messages',
    })
    expect(log.status).toBe(200)
    expect(log.body).toEqual({
      messages: [
        {
          messageId,
          eventId: message.eventId,
          type: 'webhook.test',
          status: 'pending',
          createdAt: message.createdAt,
          nextAttemptAt: expect.any(String),
          payload: JSON.parse(message.body),
          attempts: [],
        },
      ],
    })
    const audit = (await auditLog(issuer.issuerId)).find((e) => e.action === 'webhook.test')
    expect(audit).toMatchObject({ details: { mode: 'TEST', messageId } })
  })

  it('pages the delivery log newest first, with each attempt; replays one message and every message since a time', async () => {
    const issuer = await issuerWith()
    const endpointId = (await create(admin, issuer, validEndpoint())).body.endpointId as string
    // Five messages, a second apart, one with two attempts (as the sender records them).
    const store = new DynamoDbWebhookStore(documentClient, config.tables)
    const start = Date.now() - 10 * 60_000
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      const at = new Date(start + i * 1000).toISOString()
      const eventId = `evt_${'a'.repeat(25)}${i}`
      const messageId = webhookMessageId({ eventId, occurredAt: at }, endpointId)
      ids.push(messageId)
      await store.putMessage({
        pk: `messages#${endpointId}`,
        sk: messageId,
        messageId,
        endpointId,
        issuerId: issuer.issuerId,
        mode: 'TEST',
        eventId,
        type: 'grant.accepted',
        // A grant.accepted payload as the sender's fan-out writes it (GrantEventData).
        body: JSON.stringify({
          type: 'grant.accepted',
          timestamp: at,
          data: {
            grantId: `gr_${'0'.repeat(25)}${i}`,
            programId: issuer.programs.TEST,
            mode: 'TEST',
            state: 'accepted',
            amount: 1,
            recipient: { email: `ann-${i}@example.com` },
            createdAt: at,
          },
        }),
        status: 'pending',
        attempts: [],
        createdAt: at,
        purgeAt: Math.floor(Date.now() / 1000) + 86_400,
      })
    }
    await store.recordAttempt(
      endpointId,
      ids[4] as string,
      {
        at: new Date().toISOString(),
        status: 500,
        latencyMs: 12,
        response: 'oops',
        trigger: 'auto',
      },
      { status: 'pending', nextAttemptAt: new Date().toISOString() },
    )
    await store.recordAttempt(
      endpointId,
      ids[4] as string,
      { at: new Date().toISOString(), error: 'timeout', latencyMs: 15_000, trigger: 'auto' },
      { status: 'failed' },
    )

    const first = await call(viewer, 'GET', issuer, `${ONE}/messages`, {
      endpointId,
      rest: '/messages',
      query: '?limit=2',
    })
    expect(first.status).toBe(200)
    const page1 = first.body.messages as {
      messageId: string
      attempts: unknown[]
      status: string
    }[]
    expect(page1.map((m) => m.messageId)).toEqual([ids[4], ids[3]])
    expect(page1[0]?.status).toBe('failed')
    expect(page1[0]?.attempts).toEqual([
      expect.objectContaining({ status: 500, latencyMs: 12, response: 'oops', trigger: 'auto' }),
      expect.objectContaining({ error: 'timeout', latencyMs: 15_000 }),
    ])
    const second = await call(viewer, 'GET', issuer, `${ONE}/messages`, {
      endpointId,
      rest: '/messages',
      query: `?limit=2&cursor=${encodeURIComponent(first.body.next as string)}`,
    })
    const third = await call(viewer, 'GET', issuer, `${ONE}/messages`, {
      endpointId,
      rest: '/messages',
      query: `?limit=2&cursor=${encodeURIComponent(second.body.next as string)}`,
    })
    expect((second.body.messages as { messageId: string }[]).map((m) => m.messageId)).toEqual([
      ids[2],
      ids[1],
    ])
    expect((third.body.messages as { messageId: string }[]).map((m) => m.messageId)).toEqual([
      ids[0],
    ])
    expect(third.body.next).toBeUndefined()
    for (const query of ['?limit=0', '?limit=101', '?limit=x', '?cursor=nope', '?since=x']) {
      expectProblem(
        await call(viewer, 'GET', issuer, `${ONE}/messages`, {
          endpointId,
          rest: '/messages',
          query,
        }),
        400,
        'validation_failed',
      )
    }

    // Replay one: the same id onto the queue; an unknown one is 404 and sends nothing.
    queued()
    const one = await call(admin, 'POST', issuer, `${ONE}/messages/{messageId}/replay`, {
      endpointId,
      rest: `/messages/${ids[4]}/replay`,
    })
    expect(one.status).toBe(202)
    expect(one.body).toEqual({ messageId: ids[4] })
    expect(queued()).toEqual([
      {
        kind: 'delivery',
        issuerId: issuer.issuerId,
        endpointId,
        messageId: ids[4],
        attempt: 0,
        trigger: 'replay',
      },
    ])
    const unknown = webhookMessageId(
      { eventId: 'evt_unknown', occurredAt: new Date().toISOString() },
      endpointId,
    )
    await expectNothingWritten(issuer, async () => {
      expectProblem(
        await call(admin, 'POST', issuer, `${ONE}/messages/{messageId}/replay`, {
          endpointId,
          rest: `/messages/${unknown}/replay`,
        }),
        404,
        'webhook_message_not_found',
      )
      expectProblem(
        await call(admin, 'POST', issuer, `${ONE}/messages/{messageId}/replay`, {
          endpointId,
          rest: '/messages/msg_nope/replay',
        }),
        404,
        'webhook_message_not_found',
      )
    })

    // Replay since: one `replay` message for the sender to page through.
    const since = new Date(start + 2500).toISOString()
    const all = await call(admin, 'POST', issuer, `${ONE}/replay`, {
      endpointId,
      rest: '/replay',
      body: { since },
    })
    expect(all.status).toBe(202)
    expect(all.body).toEqual({ since })
    expect(queued()).toEqual([{ kind: 'replay', issuerId: issuer.issuerId, endpointId, since }])
    await expectNothingWritten(issuer, async () => {
      for (const body of [
        { since: 'yesterday' },
        { since: new Date(Date.now() + HOUR).toISOString() },
        {},
        { since: 5 },
      ]) {
        expectProblem(
          await call(admin, 'POST', issuer, `${ONE}/replay`, { endpointId, rest: '/replay', body }),
          400,
          'validation_failed',
        )
      }
    })
    const replays = (await auditLog(issuer.issuerId)).filter((e) => e.action === 'webhook.replay')
    expect(replays.map((e) => e.details)).toEqual(
      expect.arrayContaining([
        { mode: 'TEST', messageId: ids[4] },
        { mode: 'TEST', since },
      ]),
    )
    expect(await messageItems(endpointId)).toHaveLength(5)
  })

  it(`starts a replay since long ago at the ${WEBHOOK_LIMITS.keepDays} days the log keeps, by the server's clock, and says so`, async () => {
    const issuer = await issuerWith()
    const endpointId = (await create(admin, issuer, validEndpoint())).body.endpointId as string
    const replay = (since: string) =>
      call(admin, 'POST', issuer, `${ONE}/replay`, { endpointId, rest: '/replay', body: { since } })
    queued()
    // The server's clock two days ahead of this process's: the clamp is the server's.
    const serverNow = Date.now() + 2 * 24 * HOUR
    const kept = new Date(serverNow - WEBHOOK_LIMITS.keepDays * 24 * HOUR).toISOString()
    const recent = new Date(serverNow - 29 * 24 * HOUR).toISOString()
    wallClock.freeze(serverNow)
    try {
      const old = await replay('2019-03-01T00:00:00Z')
      expect(old.status).toBe(202)
      expect(old.body).toEqual({ since: kept })
      expect(queued()).toEqual([
        { kind: 'replay', issuerId: issuer.issuerId, endpointId, since: kept },
      ])
      // Within the days kept: the time asked.
      expect((await replay(recent)).body).toEqual({ since: recent })
      expect(queued()).toEqual([
        { kind: 'replay', issuerId: issuer.issuerId, endpointId, since: recent },
      ])
      // A time to come, by the server's clock, is still refused.
      await expectNothingWritten(issuer, async () => {
        expectProblem(
          await replay(new Date(serverNow + 60_000).toISOString()),
          400,
          'validation_failed',
        )
      })
    } finally {
      wallClock.reset()
    }
    const replays = (await auditLog(issuer.issuerId)).filter((e) => e.action === 'webhook.replay')
    expect(replays.map((e) => e.details?.since).sort()).toEqual([kept, recent])
  })

  it('uses exactly the DynamoDB actions each route declares', async () => {
    const issuer = await issuerWith()
    const seen = async (id: string, act: () => Promise<Call>) => {
      const recorder = recordAccess(dynamodb)
      try {
        const answer = await act()
        expect(answer.status).toBeLessThan(300)
        return answer
      } finally {
        recorder.stop()
        expect({ id, seen: recorder.seen }).toEqual({ id, seen: declaredAccess(id) })
      }
    }
    const created = await seen('CreateWebhookEndpoint', () =>
      create(admin, issuer, validEndpoint()),
    )
    const endpointId = created.body.endpointId as string
    await seen('ListWebhookEndpoints', () => call(viewer, 'GET', issuer, BASE))
    await seen('GetWebhookEndpoint', () => call(viewer, 'GET', issuer, ONE, { endpointId }))
    await seen('UpdateWebhookEndpoint', () =>
      call(admin, 'PATCH', issuer, ONE, { endpointId, body: { kinds: ['grant.created'] } }),
    )
    await seen('RotateWebhookSecret', () =>
      call(admin, 'POST', issuer, `${ONE}/rotate-secret`, { endpointId, rest: '/rotate-secret' }),
    )
    const test = await seen('SendTestWebhook', () =>
      call(admin, 'POST', issuer, `${ONE}/test`, { endpointId, rest: '/test' }),
    )
    await seen('ListWebhookMessages', () =>
      call(viewer, 'GET', issuer, `${ONE}/messages`, { endpointId, rest: '/messages' }),
    )
    await seen('ReplayWebhookMessage', () =>
      call(admin, 'POST', issuer, `${ONE}/messages/{messageId}/replay`, {
        endpointId,
        rest: `/messages/${test.body.messageId}/replay`,
      }),
    )
    await seen('ReplayWebhookMessages', () =>
      call(admin, 'POST', issuer, `${ONE}/replay`, {
        endpointId,
        rest: '/replay',
        body: { since: new Date(Date.now() - HOUR).toISOString() },
      }),
    )
    await seen('DeleteWebhookEndpoint', () => call(admin, 'DELETE', issuer, ONE, { endpointId }))
    queued()
  })
})

describe("a program's pool-low threshold", () => {
  const settings = '/manage/issuers/{issuerId}/programs/{programId}/offer-settings'
  const patch = (issuer: Issuer, body: unknown) =>
    manageCall(
      api.baseUrl,
      admin,
      'PATCH',
      `/manage/issuers/${issuer.issuerId}/programs/${issuer.programs.TEST}/offer-settings`,
      { body },
    ).then((answer) => documented(settings, 'PATCH', answer))
  const head = async (programId: string) =>
    (
      await documentClient.send(
        new GetCommand({
          TableName: config.tables.programs,
          Key: { programId },
          ConsistentRead: true,
        }),
      )
    ).Item as Record<string, unknown>

  it('sets, shows, clears and validates poolLowThreshold, audited', async () => {
    const issuer = await issuerWith()
    const set = await patch(issuer, { poolLowThreshold: 50 })
    expect(set.status).toBe(200)
    expect(set.body.poolLowThreshold).toBe(50)
    expect((await head(issuer.programs.TEST)).poolLowThreshold).toBe(50)
    const read = await manageCall(
      api.baseUrl,
      viewer,
      'GET',
      `/manage/issuers/${issuer.issuerId}/programs/${issuer.programs.TEST}`,
    )
    expect(read.body.poolLowThreshold).toBe(50)

    for (const bad of [0, -1, 2.5, '10', true]) {
      const before = await head(issuer.programs.TEST)
      const answer = await patch(issuer, { poolLowThreshold: bad })
      expectProblem(answer, 400, 'validation_failed')
      expect(answer.body.errors).toEqual([
        { field: 'poolLowThreshold', message: expect.any(String) },
      ])
      expect(await head(issuer.programs.TEST)).toEqual(before)
    }

    const cleared = await patch(issuer, { poolLowThreshold: null })
    expect(cleared.status).toBe(200)
    expect(cleared.body.poolLowThreshold).toBeNull()
    expect((await head(issuer.programs.TEST)).poolLowThreshold).toBeUndefined()

    const entries = (await auditLog(issuer.issuerId)).filter(
      (e) => e.action === 'program.offer_settings',
    )
    expect(entries.map((e) => e.details?.poolLowThreshold)).toEqual(
      expect.arrayContaining([50, null]),
    )
  })
})
