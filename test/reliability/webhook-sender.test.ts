import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { Webhook } from 'standardwebhooks'
import { WEBHOOKS_QUEUE } from '../../functions/consumers'
import { AccessCache } from '../../functions/core/access-cache'
import { makeGrantTokens } from '../../functions/core/grant-tokens'
import type { Mode } from '../../functions/domain/api-key'
import { auditEntry } from '../../functions/domain/audit-entry'
import type { MembershipRecord } from '../../functions/domain/people'
import { generateWebhookSecret } from '../../functions/domain/webhook-signature'
import {
  endpointKey,
  messageKey,
  WEBHOOK_LIMITS,
  WEBHOOK_RETRY_SCHEDULE_SECONDS,
  type WebhookEndpointRecord,
  type WebhookEvent,
  type WebhookEventKind,
  type WebhookMessageRecord,
  type WebhookQueueMessage,
  webhookEventId,
  webhookMessageId,
} from '../../functions/domain/webhooks'
import { MailSinkMailer } from '../../functions/mail/mailer'
import { secretBoxFrom } from '../../functions/runtime/secret-box'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import { DynamoDbWebhookStore } from '../../functions/stores/webhooks.dynamodb'
import {
  makeWebhookSenderHandler,
  programPool,
} from '../../functions/wiring/webhook-sender.consumer'
import { readMail } from '../../local/mail-sink'
import { LocalQueue, localQueueSender, pollOnce } from '../../local/queue'
import { auditLog } from '../manage/grants-support'
import { admin, createKey, newIssuer } from '../support/api'
import { config, documentClient, runtimeWith, wallClock } from '../support/runtime'
import { interceptor } from '../support/sdk-intercept'
import { type Received, startWebhookReceiver } from '../support/webhook-receiver'

/**
 * The WebhookSender consumer (functions/core/webhook-sender.ts) on DynamoDB Local, fed by a local
 * Webhooks queue with its spec (visibility timeout, delays, dead letters), delivering to a REAL
 * HTTP receiver on loopback that verifies every request with the `standardwebhooks` package (code
 * we did not write). The schedule runs on the test's clock (frozen, moved to the next message's
 * time); each attempt's `webhook-timestamp` is the real time, which standardwebhooks checks
 * against its own clock (5 minutes' tolerance) whatever the schedule's clock says.
 */

const DAY_MS = 24 * 3600 * 1000
const store = new DynamoDbWebhookStore(documentClient, config.tables)
const sealKey = randomBytes(32).toString('base64')
const localRuntime = runtimeWith({
  WEBHOOK_LOCAL_SECRET_KEY: sealKey,
  WEBHOOK_ALLOW_LOOPBACK: 'true',
})
const box = secretBoxFrom(localRuntime.config.webhooks)
const sinkDir = mkdtempSync(join(tmpdir(), 'webhook-mail-'))
const sinkFile = join(sinkDir, 'mail.jsonl')
const mailer = new MailSinkMailer(sinkFile)

/** Middle of the jitter: every wait is the schedule's own step. */
const random = () => 0.5

// ---- the receiver ----

let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>
let base = ''

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  base = receiver.base
})
afterAll(async () => {
  await receiver.close()
  rmSync(sinkDir, { recursive: true, force: true })
  wallClock.reset()
})
/** Real time (seconds) when the running test began: no delivery of it can be signed before. */
let testStartedSeconds = 0
beforeEach(() => {
  testStartedSeconds = Date.now() / 1000
  wallClock.freeze()
})
afterEach(() => wallClock.reset())

const receivedBy = (endpointId: string) => receiver.by(endpointId)

// ---- fixtures ----

const base32 = (n: number) =>
  Array.from(randomBytes(n), (b) => 'abcdefghijklmnopqrstuvwxyz234567'[b % 32]).join('')

const newEndpoint = async (
  issuerId: string,
  options: { mode?: Mode; kinds?: WebhookEventKind[]; url?: string } = {},
): Promise<WebhookEndpointRecord> => {
  const endpointId = `we_${base32(26)}`
  const secret = generateWebhookSecret()
  receiver.secrets.set(endpointId, secret)
  const at = new Date(wallClock.now()).toISOString()
  const endpoint: WebhookEndpointRecord = {
    ...endpointKey(issuerId, endpointId),
    endpointId,
    issuerId,
    mode: options.mode ?? 'TEST',
    url: options.url ?? `${base}/hooks/${endpointId}`,
    kinds: options.kinds ?? ['grant.created'],
    enabled: true,
    secrets: [{ sealed: await box.seal(secret, { endpointId }), createdAt: at }],
    createdAt: at,
    updatedAt: at,
    version: 1,
  }
  const audit = auditEntry({
    issuerId,
    actor: { kind: 'person', sub: 'sub-test', email: 'admin@example.com' },
    action: 'webhook.create',
    target: { type: 'issuer', id: issuerId },
    now: wallClock.now(),
  })
  expect(await store.createEndpoint(endpoint, audit, WEBHOOK_LIMITS.endpointsPerMode)).toBe('done')
  return endpoint
}

const grantEvent = (
  issuerId: string,
  options: { mode?: Mode; type?: WebhookEventKind; programId?: string; eventId?: string } = {},
): WebhookEvent => {
  const mode = options.mode ?? 'TEST'
  const occurredAt = new Date(wallClock.now()).toISOString()
  return {
    eventId: options.eventId ?? webhookEventId('test', randomUUID()),
    type: options.type ?? 'grant.created',
    issuerId,
    mode,
    occurredAt,
    data: {
      grantId: `gr_${base32(26)}`,
      programId: options.programId ?? `pr_${base32(26)}`,
      mode,
      state: 'offered',
      amount: 3,
      recipient: { email: 'ann@example.com' },
      createdAt: occurredAt,
    },
  }
}

/** A rig: the local Webhooks queue, its sender over this file's runtime, and a clock-moving drain. */
const rig = (
  overrides: Parameters<typeof makeWebhookSenderHandler>[1] = {},
  runtime = localRuntime,
) => {
  const queue = new LocalQueue(WEBHOOKS_QUEUE, wallClock)
  const handler = makeWebhookSenderHandler(runtime, {
    queue: localQueueSender(queue),
    mailer,
    random,
    endpointsTtlMs: 0,
    ...overrides,
  })
  const put = (message: WebhookQueueMessage) => queue.send(JSON.stringify(message))
  /** Polls until nothing is visible (5 polls of 10 at a time, as the event source mapping). */
  const drain = async () => {
    for (let i = 0; i < 1000; i++) {
      const outcomes = await Promise.all(
        Array.from({ length: 5 }, () => pollOnce(queue, handler, 10)),
      )
      for (const o of outcomes) if (o.error !== undefined) throw o.error
      if (outcomes.every((o) => o.received === 0)) return
    }
    throw new Error('The queue never emptied')
  }
  /** Drains, moving the clock to the next delayed message, until the queue is empty or `until` (ms) is reached. */
  const settle = async (until = Number.POSITIVE_INFINITY) => {
    for (let i = 0; i < 10_000; i++) {
      await drain()
      const next = queue.nextVisibleAt()
      if (next === undefined || next > until) return
      wallClock.advance(next - wallClock.now())
    }
    throw new Error('Never settled')
  }
  return { queue, handler, put, drain, settle }
}

const messagesOf = async (endpointId: string) =>
  (await store.listMessages(endpointId, { limit: 1000, oldestFirst: true })).messages

const expectVerified = (deliveries: Received[]) => {
  for (const d of deliveries) {
    expect(d.verified).toBe(true)
    // Signed at the real time of the attempt, not the test's moved clock (standardwebhooks also
    // refuses > 5 min off): between the test's start and the delivery's arrival, however long
    // a loaded machine takes between the two (a fixed 2 s tolerance failed under load).
    expect(d.timestamp).toBeGreaterThanOrEqual(Math.floor(testStartedSeconds))
    expect(d.timestamp).toBeLessThanOrEqual(Math.ceil(d.realSeconds))
  }
}

// ---- tests ----

describe('delivery', () => {
  it('a receiver failing twice then answering 200 gets the same webhook-id three times, freshly signed', async () => {
    const { issuerId } = await newIssuer()
    const endpoint = await newEndpoint(issuerId)
    receiver.behaviours.set(endpoint.endpointId, (n) =>
      n < 2 ? { status: 500, body: 'boom' } : { status: 200 },
    )
    const { put, settle } = rig()
    const event = grantEvent(issuerId)
    const start = wallClock.now()
    put({ kind: 'event', event })
    await settle()

    const got = receivedBy(endpoint.endpointId)
    expect(got).toHaveLength(3)
    const messageId = webhookMessageId(event, endpoint.endpointId)
    expect(got.map((r) => r.id)).toEqual([messageId, messageId, messageId])
    expectVerified(got)
    expect(JSON.parse(got[0]?.body as string)).toEqual({
      type: 'grant.created',
      timestamp: event.occurredAt,
      data: event.data,
    })
    // The schedule's clock moved 5 s then 5 min; the timestamps are the real time regardless.
    expect(wallClock.now() - start).toBe(
      (WEBHOOK_RETRY_SCHEDULE_SECONDS[0] + WEBHOOK_RETRY_SCHEDULE_SECONDS[1]) * 1000,
    )
    expect(
      Math.max(...got.map((r) => r.timestamp)) - Math.min(...got.map((r) => r.timestamp)),
    ).toBeLessThan(60)

    const [message] = await messagesOf(endpoint.endpointId)
    expect(message).toMatchObject({ messageId, status: 'delivered', eventId: event.eventId })
    expect(message?.nextAttemptAt).toBeUndefined()
    expect(message?.attempts.map((a) => [a.status, a.trigger, a.response])).toEqual([
      [500, 'auto', 'boom'],
      [500, 'auto', 'boom'],
      [200, 'auto', 'ok'],
    ])
    const now = await store.getEndpoint(issuerId, endpoint.endpointId)
    expect(now?.failingSince).toBeUndefined()
    expect(now?.lastSuccessAt).toBe(new Date(wallClock.now()).toISOString())
  })

  it('410 Gone disables the endpoint at once; it gets nothing more', async () => {
    const { issuerId } = await newIssuer()
    const endpoint = await newEndpoint(issuerId)
    receiver.behaviours.set(endpoint.endpointId, () => ({ status: 410 }))
    const { put, settle } = rig()
    put({ kind: 'event', event: grantEvent(issuerId) })
    await settle()
    expect(receivedBy(endpoint.endpointId)).toHaveLength(1)
    expect(await store.getEndpoint(issuerId, endpoint.endpointId)).toMatchObject({
      enabled: false,
      disabledReason: 'gone',
    })
    // Audited, by the service itself: the host only.
    expect((await auditLog(issuerId)).filter((e) => e.action === 'webhook.disable')).toEqual([
      expect.objectContaining({
        actor: { kind: 'service', label: 'webhook sender' },
        action: 'webhook.disable',
        target: { type: 'webhook_endpoint', id: endpoint.endpointId },
        details: { mode: 'TEST', host: new URL(endpoint.url).host, reason: 'gone' },
      }),
    ])
    const [message] = await messagesOf(endpoint.endpointId)
    expect(message?.status).toBe('failed')
    expect(message?.attempts).toHaveLength(1)
    put({ kind: 'event', event: grantEvent(issuerId) })
    await settle()
    expect(receivedBy(endpoint.endpointId)).toHaveLength(1)
    expect(await messagesOf(endpoint.endpointId)).toHaveLength(1)
  })

  it("429 with Retry-After waits as long as asked (up to the next step's wait)", async () => {
    const { issuerId } = await newIssuer()
    const endpoint = await newEndpoint(issuerId)
    receiver.behaviours.set(endpoint.endpointId, (n) =>
      n === 0 ? { status: 429, headers: { 'retry-after': '120' } } : { status: 200 },
    )
    const { put, settle } = rig()
    const start = wallClock.now()
    put({ kind: 'event', event: grantEvent(issuerId) })
    // 119 s later (the schedule alone would have retried after 5 s): nothing yet.
    await settle(start + 119_000)
    expect(receivedBy(endpoint.endpointId)).toHaveLength(1)
    const [waiting] = await messagesOf(endpoint.endpointId)
    expect(waiting?.nextAttemptAt).toBe(new Date(start + 120_000).toISOString())
    await settle()
    expect(wallClock.now() - start).toBe(120_000)
    const got = receivedBy(endpoint.endpointId)
    expect(got).toHaveLength(2)
    expectVerified(got)
    expect((await messagesOf(endpoint.endpointId))[0]?.status).toBe('delivered')
  })

  it('a receiver that always fails gets 10 attempts over about 3 days, then the message is failed', async () => {
    const { issuerId } = await newIssuer()
    const endpoint = await newEndpoint(issuerId)
    receiver.behaviours.set(endpoint.endpointId, () => ({ status: 503, body: 'down' }))
    const { put, settle, queue } = rig()
    const start = wallClock.now()
    put({ kind: 'event', event: grantEvent(issuerId) })
    await settle()
    const got = receivedBy(endpoint.endpointId)
    expect(got).toHaveLength(10)
    expectVerified(got)
    expect(new Set(got.map((r) => r.id)).size).toBe(1)
    const total = WEBHOOK_RETRY_SCHEDULE_SECONDS.reduce((a, b) => a + b, 0) * 1000
    expect(wallClock.now() - start).toBe(total)
    const [message] = await messagesOf(endpoint.endpointId)
    expect(message?.status).toBe('failed')
    expect(message?.nextAttemptAt).toBeUndefined()
    expect(message?.attempts.map((a) => a.status)).toEqual(Array(10).fill(503))
    // Failing for 3 days, not 5: still enabled, failing since the first attempt.
    expect(await store.getEndpoint(issuerId, endpoint.endpointId)).toMatchObject({
      enabled: true,
      failingSince: new Date(start).toISOString(),
    })
    // Every hop and attempt was its own message: none was received twice, none dead-lettered.
    expect(queue.deadLetters).toHaveLength(0)
  })

  it("an endpoint failing for 5 days is disabled and the issuer's owners are e-mailed, once", async () => {
    const { issuerId } = await newIssuer()
    const member = (email: string, role: MembershipRecord['role']): MembershipRecord => ({
      issuerId,
      sub: `sub-${randomUUID()}`,
      email,
      role,
      status: 'active',
      createdAt: new Date().toISOString(),
      invitedBy: 'operator CLI',
    })
    const people = [
      member(`owner1-${issuerId}@example.com`, 'owner'),
      member(`owner2-${issuerId}@example.com`, 'owner'),
      member(`viewer-${issuerId}@example.com`, 'viewer'),
    ]
    for (const p of people) {
      await documentClient.send(new PutCommand({ TableName: config.tables.memberships, Item: p }))
    }
    const endpoint = await newEndpoint(issuerId, {
      url: `${base}/private/receiver-${issuerId}?token=s3cr3t`,
    })
    // A URL with a token in its query (the mail must not show it); the receiver answers 500.
    receiver.behaviours.set(`receiver-${issuerId}`, () => ({ status: 500 }))
    const { put, settle } = rig()
    const start = wallClock.now()
    put({ kind: 'event', event: grantEvent(issuerId) })
    await settle()
    // About 3 days of failures: still enabled.
    expect((await store.getEndpoint(issuerId, endpoint.endpointId))?.enabled).toBe(true)
    // A new event 5 days after the first failure: its first attempt fails, the endpoint is off.
    wallClock.advance(start + WEBHOOK_LIMITS.disableAfterFailingDays * DAY_MS - wallClock.now())
    put({ kind: 'event', event: grantEvent(issuerId) })
    await settle()
    expect(await store.getEndpoint(issuerId, endpoint.endpointId)).toMatchObject({
      enabled: false,
      disabledReason: 'failing',
      failingSince: new Date(start).toISOString(),
    })
    // One audit entry, the service's: the host, never the URL's path or its token.
    const entries = (await auditLog(issuerId)).filter((e) => e.action === 'webhook.disable')
    expect(entries).toEqual([
      expect.objectContaining({
        actor: { kind: 'service', label: 'webhook sender' },
        action: 'webhook.disable',
        details: {
          mode: endpoint.mode,
          host: new URL(endpoint.url).host,
          reason: 'failing',
          failingSince: new Date(start).toISOString(),
        },
      }),
    ])
    expect(JSON.stringify(entries)).not.toContain('s3cr3t')
    const messages = await messagesOf(endpoint.endpointId)
    expect(messages.map((m) => [m.status, m.attempts.length])).toEqual([
      ['failed', 10],
      // Its next attempt found the endpoint off: failed, with the one attempt made.
      ['failed', 1],
    ])
    const mail = readMail(sinkFile).filter((m) => m.text.includes(endpoint.endpointId))
    expect(mail.map((m) => m.to).sort()).toEqual([people[0]?.email, people[1]?.email].sort())
    for (const m of mail) {
      expect(m.subject).toContain('127.0.0.1')
      expect(m.text).toContain('127.0.0.1')
      // No path or query (a receiver's token), no secret.
      expect(m.text).not.toContain('s3cr3t')
      expect(m.text).not.toContain('whsec_')
      expect(m.text).not.toContain(receiver.secrets.get(endpoint.endpointId))
    }
    // Another event: nothing sent, no second mail.
    put({ kind: 'event', event: grantEvent(issuerId) })
    await settle()
    expect(readMail(sinkFile).filter((m) => m.text.includes(endpoint.endpointId))).toHaveLength(2)
  })
})

describe('signing', () => {
  it('signs with the current and the rotated-out secret during the overlap, then with the current only', async () => {
    const { issuerId } = await newIssuer()
    const endpoint = await newEndpoint(issuerId)
    const older = receiver.secrets.get(endpoint.endpointId) as string
    const current = generateWebhookSecret()
    const now = wallClock.now()
    const rotated: WebhookEndpointRecord = {
      ...endpoint,
      secrets: [
        {
          sealed: await box.seal(current, { endpointId: endpoint.endpointId }),
          createdAt: new Date(now).toISOString(),
        },
        {
          ...(endpoint.secrets[0] as WebhookEndpointRecord['secrets'][number]),
          expiresAt: new Date(now + WEBHOOK_LIMITS.rotationOverlapHours * 3600_000).toISOString(),
        },
      ],
      version: 2,
    }
    expect(await store.replaceEndpoint(rotated, 1, undefined)).toBe('done')
    const { put, settle } = rig()
    const verifies = (secret: string, r: Received) => {
      try {
        new Webhook(secret).verify(r.body, r.headers as Record<string, string>)
        return true
      } catch {
        return false
      }
    }
    put({ kind: 'event', event: grantEvent(issuerId) })
    await settle()
    const [during] = receivedBy(endpoint.endpointId)
    expect(String(during?.headers['webhook-signature']).split(' ')).toHaveLength(2)
    expect([verifies(current, during as Received), verifies(older, during as Received)]).toEqual([
      true,
      true,
    ])
    // Past the overlap (the schedule's clock): the old secret no longer signs.
    wallClock.advance(WEBHOOK_LIMITS.rotationOverlapHours * 3600_000)
    put({ kind: 'event', event: grantEvent(issuerId) })
    await settle()
    const after = receivedBy(endpoint.endpointId)[1] as Received
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1)
    expect([verifies(current, after), verifies(older, after)]).toEqual([true, false])
  })

  it("a succeeding endpoint is written at most once a minute (a person's edit is not raced by every delivery)", async () => {
    const { issuerId } = await newIssuer()
    const endpoint = await newEndpoint(issuerId)
    const { put, settle } = rig()
    for (let i = 0; i < 3; i++) {
      put({ kind: 'event', event: grantEvent(issuerId) })
      await settle()
      wallClock.advance(10_000)
    }
    expect(receivedBy(endpoint.endpointId)).toHaveLength(3)
    const now = await store.getEndpoint(issuerId, endpoint.endpointId)
    // Created at version 1, its first success written (2), the next two within the minute not.
    expect(now?.version).toBe(2)
    wallClock.advance(60_000)
    put({ kind: 'event', event: grantEvent(issuerId) })
    await settle()
    expect((await store.getEndpoint(issuerId, endpoint.endpointId))?.version).toBe(3)
  })
})

describe('fan-out', () => {
  it('TEST events never reach a LIVE endpoint of the same issuer, nor LIVE events a TEST one', async () => {
    const { issuerId } = await newIssuer()
    const test = await newEndpoint(issuerId, { mode: 'TEST' })
    const live = await newEndpoint(issuerId, { mode: 'LIVE' })
    const other = await newEndpoint(issuerId, { mode: 'TEST', kinds: ['grant.accepted'] })
    const { put, settle } = rig()
    const testEvent = grantEvent(issuerId, { mode: 'TEST' })
    put({ kind: 'event', event: testEvent })
    await settle()
    expect(receivedBy(test.endpointId).map((r) => r.id)).toEqual([
      webhookMessageId(testEvent, test.endpointId),
    ])
    expect(receivedBy(live.endpointId)).toHaveLength(0)
    expect(await messagesOf(live.endpointId)).toHaveLength(0)
    // Not subscribed to grant.created: nothing either.
    expect(await messagesOf(other.endpointId)).toHaveLength(0)
    const liveEvent = grantEvent(issuerId, { mode: 'LIVE' })
    put({ kind: 'event', event: liveEvent })
    await settle()
    expect(receivedBy(live.endpointId).map((r) => r.id)).toEqual([
      webhookMessageId(liveEvent, live.endpointId),
    ])
    expect(receivedBy(test.endpointId)).toHaveLength(1)
    expectVerified([...receivedBy(test.endpointId), ...receivedBy(live.endpointId)])
  })

  it('an event delivered twice (at once, and later) makes one message and one delivery', async () => {
    const { issuerId } = await newIssuer()
    const endpoint = await newEndpoint(issuerId)
    const { put, settle } = rig()
    const event = grantEvent(issuerId)
    put({ kind: 'event', event })
    put({ kind: 'event', event })
    await settle()
    put({ kind: 'event', event })
    await settle()
    expect(await messagesOf(endpoint.endpointId)).toHaveLength(1)
    expect(receivedBy(endpoint.endpointId)).toHaveLength(1)
  })

  it('a repeated event whose message was never attempted sends its delivery again', async () => {
    const { issuerId } = await newIssuer()
    const endpoint = await newEndpoint(issuerId)
    const event = grantEvent(issuerId)
    // The first fan-out wrote the message, and its delivery was lost (the queue refused it).
    const refusing = rig({ queue: { sendBatch: async (e) => ({ failed: e.map((x) => x.id) }) } })
    refusing.put({ kind: 'event', event })
    await refusing.drain().catch(() => undefined)
    expect(await messagesOf(endpoint.endpointId)).toHaveLength(1)
    expect(receivedBy(endpoint.endpointId)).toHaveLength(0)
    const { put, settle } = rig()
    put({ kind: 'event', event })
    await settle()
    expect(receivedBy(endpoint.endpointId)).toHaveLength(1)
    expect((await messagesOf(endpoint.endpointId))[0]?.status).toBe('delivered')
  })
})

describe('what the sender does not deliver', () => {
  it('a deleted endpoint gets nothing: its pending message is failed, no attempt recorded', async () => {
    const { issuerId } = await newIssuer()
    const endpoint = await newEndpoint(issuerId)
    receiver.behaviours.set(endpoint.endpointId, () => ({ status: 500 }))
    const { put, settle } = rig()
    const start = wallClock.now()
    put({ kind: 'event', event: grantEvent(issuerId) })
    // The first attempt fails; its retry waits 5 s.
    await settle(start + 1000)
    const audit = auditEntry({
      issuerId,
      actor: { kind: 'operator', label: 'operator CLI' },
      action: 'webhook.delete',
      target: { type: 'issuer', id: issuerId },
      now: wallClock.now(),
    })
    expect(await store.deleteEndpoint(endpoint, audit)).toBe('done')
    await settle()
    expect(receivedBy(endpoint.endpointId)).toHaveLength(1)
    const [message] = await messagesOf(endpoint.endpointId)
    expect(message?.status).toBe('failed')
    expect(message?.attempts).toHaveLength(1)
    expect(message?.nextAttemptAt).toBeUndefined()
  })

  it('a message of no known shape ends in the dead letters after maxReceiveCount receives', async () => {
    const { put, settle, queue } = rig()
    queue.send('{"kind":"delivery","messageId":42}')
    queue.send('not json')
    put({ kind: 'event', event: { ...grantEvent('iss_x'), mode: 'PROD' as Mode } })
    await settle()
    expect(queue.deadLetters.map((m) => m.receiveCount)).toEqual(
      Array(3).fill(WEBHOOKS_QUEUE.maxReceiveCount),
    )
  })
})

describe('replay', () => {
  it('re-sends every message since a time with the same webhook-id, a page at a time', async () => {
    const { issuerId } = await newIssuer()
    const endpoint = await newEndpoint(issuerId)
    const { put, settle } = rig()
    const early = grantEvent(issuerId)
    put({ kind: 'event', event: early })
    await settle()
    wallClock.advance(60_000)
    const since = new Date(wallClock.now()).toISOString()
    // 102 more messages (more than a page of 100), put as the fan-out does.
    const later: WebhookMessageRecord[] = []
    for (let i = 0; i < 102; i++) {
      const event = grantEvent(issuerId)
      const messageId = webhookMessageId(
        { ...event, occurredAt: new Date(wallClock.now() + i).toISOString() },
        endpoint.endpointId,
      )
      const message: WebhookMessageRecord = {
        ...messageKey(endpoint.endpointId, messageId),
        messageId,
        endpointId: endpoint.endpointId,
        issuerId,
        mode: 'TEST',
        eventId: event.eventId,
        type: 'grant.created',
        body: JSON.stringify({
          type: 'grant.created',
          timestamp: event.occurredAt,
          data: event.data,
        }),
        status: 'delivered',
        attempts: [],
        createdAt: event.occurredAt,
        purgeAt: Math.floor(wallClock.now() / 1000) + 86400,
      }
      later.push(message)
    }
    await Promise.all(later.map((m) => store.putMessage(m)))
    const before = receivedBy(endpoint.endpointId).length
    put({ kind: 'replay', issuerId, endpointId: endpoint.endpointId, since })
    await settle()
    const replayed = receivedBy(endpoint.endpointId).slice(before)
    expect(replayed.map((r) => r.id).sort()).toEqual(later.map((m) => m.messageId).sort())
    expectVerified(replayed)
    const stored = await messagesOf(endpoint.endpointId)
    expect(stored[0]?.attempts.map((a) => a.trigger)).toEqual(['auto'])
    for (const m of stored.slice(1)) expect(m.attempts.map((a) => a.trigger)).toEqual(['replay'])
    // And the early one alone, replayed from its own time: the same webhook-id as the first time.
    put({ kind: 'replay', issuerId, endpointId: endpoint.endpointId, since: early.occurredAt })
    await settle()
    expect(
      receivedBy(endpoint.endpointId).filter(
        (r) => r.id === webhookMessageId(early, endpoint.endpointId),
      ),
    ).toHaveLength(2)
  })
})

describe('safety', () => {
  it('refuses private addresses (and loopback) when loopback is not allowed: nothing reaches them', async () => {
    const strict = runtimeWith({
      WEBHOOK_LOCAL_SECRET_KEY: sealKey,
      WEBHOOK_ALLOW_LOOPBACK: 'false',
    })
    const { issuerId } = await newIssuer()
    const loopback = await newEndpoint(issuerId)
    const privateHost = await newEndpoint(issuerId, { url: 'http://hooks.integrator.test/in' })
    const resolved: string[] = []
    const { put, settle } = rig(
      {
        resolve: async (host) => {
          resolved.push(host)
          return host === '127.0.0.1'
            ? [{ address: '127.0.0.1', family: 4 }]
            : [{ address: '10.1.2.3', family: 4 }]
        },
      },
      strict,
    )
    put({ kind: 'event', event: grantEvent(issuerId) })
    await settle(wallClock.now() + 1000)
    expect(receivedBy(loopback.endpointId)).toHaveLength(0)
    expect(resolved).toContain('hooks.integrator.test')
    for (const endpoint of [loopback, privateHost]) {
      const [message] = await messagesOf(endpoint.endpointId)
      expect(message?.attempts.map((a) => a.error)).toEqual(['refused_address'])
      expect(message?.status).toBe('pending')
    }
  })
})

describe('program.pool_low', () => {
  it('fires once when a grant takes the pool to its threshold, read from one snapshot of the shards, and re-arms above it', async () => {
    const { issuerId } = await admin.createIssuer({ name: 'Pool low' })
    const program = await admin.createProgram({
      issuer: issuerId,
      mode: 'TEST',
      name: 'p',
      pool: 300,
      shards: 3,
    })
    const key = await createKey({ issuerId, mode: 'TEST' })
    const setThreshold = (threshold: number) =>
      documentClient.send(
        new UpdateCommand({
          TableName: config.tables.programs,
          Key: { programId: program.programId },
          UpdateExpression: 'SET poolLowThreshold = :t',
          ExpressionAttributeValues: { ':t': threshold },
        }),
      )
    await setThreshold(100)
    const grants = new DynamoDbGrantStore(documentClient, config.tables)
    const grantTokens = makeGrantTokens({ store: grants, access: new AccessCache(grants) })
    const grant = (amount: number) =>
      grantTokens({
        apiKey: key.secret,
        programId: program.programId,
        idempotencyKey: undefined,
        body: { recipient: { email: 'ann@example.com' }, reason: 'Launch', amount },
      })
    const lowOnly = await newEndpoint(issuerId, { kinds: ['program.pool_low'] })
    const { put, settle } = rig()
    const created = () =>
      put({ kind: 'event', event: grantEvent(issuerId, { programId: program.programId }) })

    await grant(150)
    created()
    await settle()
    // 150 left, threshold 100: nothing.
    expect(receivedBy(lowOnly.endpointId)).toHaveLength(0)
    await grant(60)
    created()
    created()
    await settle()
    await grant(10)
    created()
    await settle()
    const fired = receivedBy(lowOnly.endpointId)
    expect(fired).toHaveLength(1)
    expectVerified(fired)
    expect(JSON.parse(fired[0]?.body as string)).toMatchObject({
      type: 'program.pool_low',
      data: {
        programId: program.programId,
        mode: 'TEST',
        pool: 300,
        remaining: 90,
        threshold: 100,
      },
    })
    // Above the threshold again (here: the threshold lowered), the mark is cleared...
    await setThreshold(50)
    created()
    await settle()
    await setThreshold(100)
    wallClock.advance(1000)
    created()
    await settle()
    // ...so the next crossing fires again, as a new event.
    const again = receivedBy(lowOnly.endpointId)
    expect(again).toHaveLength(2)
    expect(again[1]?.id).not.toBe(again[0]?.id)
    expect(JSON.parse(again[1]?.body as string).data).toMatchObject({ remaining: 80 })
    // Only pool_low was asked for: the grant.created events made no message.
    expect((await messagesOf(lowOnly.endpointId)).map((m) => m.type)).toEqual([
      'program.pool_low',
      'program.pool_low',
    ])
  })

  it('a snapshot cancelled by grants in flight (DynamoDB, not DynamoDB Local) is read again, up to 5 times', async () => {
    const program = await admin.createProgram({
      issuer: (await admin.createIssuer({ name: 'Snapshot' })).issuerId,
      mode: 'TEST',
      name: 's',
      pool: 400,
      shards: 4,
    })
    await documentClient.send(
      new UpdateCommand({
        TableName: config.tables.programs,
        Key: { programId: program.programId },
        UpdateExpression: 'SET poolLowThreshold = :t',
        ExpressionAttributeValues: { ':t': 50 },
      }),
    )
    const base = new DynamoDBClient({
      endpoint: config.dynamodbEndpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    })
    const client = DynamoDBDocumentClient.from(base)
    let cancels = 0
    let limit = 4
    interceptor(base)(async (name, _input, next) => {
      if (name !== 'TransactGetItemsCommand' || cancels >= limit) return next()
      cancels += 1
      throw new TransactionCanceledException({
        message: 'Transaction cancelled [TransactionConflict]',
        $metadata: { httpStatusCode: 400 },
        CancellationReasons: [{ Code: 'TransactionConflict' }],
      })
    })
    const poolOf = programPool(client, config.tables.programs)
    expect(await poolOf(program.programId)).toEqual({
      issuerId: program.issuerId,
      mode: 'TEST',
      pool: 400,
      remaining: 400,
      threshold: 50,
    })
    expect(cancels).toBe(4)
    cancels = 0
    limit = 5
    await expect(poolOf(program.programId)).rejects.toBeInstanceOf(TransactionCanceledException)
    expect(cancels).toBe(5)
    base.destroy()
  })
})
