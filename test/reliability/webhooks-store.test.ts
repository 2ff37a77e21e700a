import { randomBytes, randomUUID } from 'node:crypto'
import { GetCommand } from '@aws-sdk/lib-dynamodb'
import { auditEntry } from '../../functions/domain/audit-entry'
import {
  endpointKey,
  messageKey,
  poolLowKey,
  WEBHOOK_LIMITS,
  type WebhookEndpointRecord,
  type WebhookMessageRecord,
  webhookMessageId,
} from '../../functions/domain/webhooks'
import {
  DynamoDbWebhookStore,
  decodeMessageCursor,
  InvalidMessageCursor,
} from '../../functions/stores/webhooks.dynamodb'
import { auditLog } from '../manage/grants-support'
import { config, documentClient } from '../support/runtime'

/**
 * The webhooks store (functions/stores/webhooks.dynamodb.ts) on DynamoDB Local: outcomes, not
 * exceptions; audit entries only with the change they record; message pages in both orders, from
 * a time, with cursors; the sender's endpoint bookkeeping and the pool-low mark.
 */
const store = new DynamoDbWebhookStore(documentClient, config.tables)
const actor = { kind: 'person' as const, sub: 'sub-1', email: 'owner@example.com' }
const base32 = () =>
  Array.from(randomBytes(26), (b) => 'abcdefghijklmnopqrstuvwxyz234567'[b % 32]).join('')
const newIssuerId = () => `iss_${randomUUID()}`

const endpointOf = (issuerId: string, overrides: Partial<WebhookEndpointRecord> = {}) => {
  const endpointId = `we_${base32()}`
  const at = '2026-11-20T10:00:00.000Z'
  return {
    ...endpointKey(issuerId, endpointId),
    endpointId,
    issuerId,
    mode: 'TEST',
    url: 'https://hooks.example.com/in',
    kinds: ['grant.created'],
    enabled: true,
    secrets: [{ sealed: 'sealed-secret', createdAt: at }],
    createdAt: at,
    updatedAt: at,
    version: 1,
    ...overrides,
  } satisfies WebhookEndpointRecord
}
const audit = (issuerId: string, action: string) =>
  auditEntry({
    issuerId,
    actor,
    action,
    target: { type: 'issuer', id: issuerId },
    now: Date.now(),
  })

const messageOf = (endpointId: string, occurredAt: string): WebhookMessageRecord => {
  const event = { eventId: `evt_${base32()}`, occurredAt }
  const messageId = webhookMessageId(event, endpointId)
  return {
    ...messageKey(endpointId, messageId),
    messageId,
    endpointId,
    issuerId: 'iss',
    mode: 'TEST',
    eventId: event.eventId,
    type: 'grant.created',
    body: '{}',
    status: 'pending',
    attempts: [],
    createdAt: occurredAt,
    purgeAt: Math.floor(Date.parse(occurredAt) / 1000) + 30 * 86400,
  }
}

describe('endpoints', () => {
  it('creates with its audit entry, refuses a taken id, lists oldest first', async () => {
    const issuerId = newIssuerId()
    const older = endpointOf(issuerId, { createdAt: '2026-11-01T00:00:00.000Z' })
    const newer = endpointOf(issuerId, { createdAt: '2026-11-02T00:00:00.000Z' })
    expect(
      await store.createEndpoint(
        newer,
        audit(issuerId, 'webhook.create'),
        WEBHOOK_LIMITS.endpointsPerMode,
      ),
    ).toBe('done')
    expect(
      await store.createEndpoint(
        older,
        audit(issuerId, 'webhook.create'),
        WEBHOOK_LIMITS.endpointsPerMode,
      ),
    ).toBe('done')
    expect(
      await store.createEndpoint(
        older,
        audit(issuerId, 'webhook.create'),
        WEBHOOK_LIMITS.endpointsPerMode,
      ),
    ).toBe('exists')
    expect((await store.listEndpoints(issuerId)).map((e) => e.endpointId)).toEqual([
      older.endpointId,
      newer.endpointId,
    ])
    // The refused create wrote no audit entry: two creates, two entries.
    expect((await auditLog(issuerId)).length).toBe(2)
    expect(await store.getEndpoint(issuerId, older.endpointId)).toEqual(older)
    expect(await store.getEndpoint(newIssuerId(), older.endpointId)).toBeUndefined()
  })

  it('replaces on its version only: done, stale, missing; deletes once', async () => {
    const issuerId = newIssuerId()
    const endpoint = endpointOf(issuerId)
    await store.createEndpoint(
      endpoint,
      audit(issuerId, 'webhook.create'),
      WEBHOOK_LIMITS.endpointsPerMode,
    )
    const changed = { ...endpoint, url: 'https://other.example.com/', version: 2 }
    expect(await store.replaceEndpoint(changed, 1, audit(issuerId, 'webhook.update'))).toBe('done')
    expect(await store.replaceEndpoint({ ...changed, version: 2 }, 1, undefined)).toBe('stale')
    expect((await store.getEndpoint(issuerId, endpoint.endpointId))?.url).toBe(
      'https://other.example.com/',
    )
    expect(await store.deleteEndpoint(endpoint, audit(issuerId, 'x'))).toBe('done')
    expect(await store.deleteEndpoint(endpoint, audit(issuerId, 'x'))).toBe('missing')
    expect(await store.replaceEndpoint({ ...changed, version: 3 }, 2, undefined)).toBe('missing')
    // create, update, delete: the refused calls wrote nothing.
    expect((await auditLog(issuerId)).map((e) => e.action)).toEqual([
      'webhook.create',
      'webhook.update',
      'x',
    ])
  })

  it("records the sender's outcomes and disables once", async () => {
    const issuerId = newIssuerId()
    const endpoint = endpointOf(issuerId)
    await store.createEndpoint(
      endpoint,
      audit(issuerId, 'webhook.create'),
      WEBHOOK_LIMITS.endpointsPerMode,
    )
    const first = await store.recordEndpointOutcome(issuerId, endpoint.endpointId, {
      kind: 'failure',
      at: '2026-11-21T00:00:00.000Z',
    })
    const second = await store.recordEndpointOutcome(issuerId, endpoint.endpointId, {
      kind: 'failure',
      at: '2026-11-22T00:00:00.000Z',
    })
    // The first failure since the last success stays the one.
    expect(first !== 'missing' && first.failingSince).toBe('2026-11-21T00:00:00.000Z')
    expect(second !== 'missing' && second.failingSince).toBe('2026-11-21T00:00:00.000Z')
    expect(second !== 'missing' && second.version).toBe(3)
    const ok = await store.recordEndpointOutcome(issuerId, endpoint.endpointId, {
      kind: 'success',
      at: '2026-11-23T00:00:00.000Z',
    })
    expect(ok !== 'missing' && ok.failingSince).toBeUndefined()
    expect(ok !== 'missing' && ok.lastSuccessAt).toBe('2026-11-23T00:00:00.000Z')
    await store.recordEndpointOutcome(issuerId, endpoint.endpointId, {
      kind: 'failure',
      at: '2026-11-24T00:00:00.000Z',
    })
    // Failing since another time than the one seen: left alone.
    expect(
      await store.disableEndpoint(issuerId, endpoint.endpointId, {
        reason: 'failing',
        at: '2026-11-30T00:00:00.000Z',
        failingSince: '2026-11-21T00:00:00.000Z',
        audit: audit(issuerId, 'webhook.disable'),
      }),
    ).toBe('unchanged')
    const disable = () =>
      store.disableEndpoint(issuerId, endpoint.endpointId, {
        reason: 'failing',
        at: '2026-11-30T00:00:00.000Z',
        failingSince: '2026-11-24T00:00:00.000Z',
        audit: audit(issuerId, 'webhook.disable'),
      })
    const audited = (await auditLog(issuerId)).length
    expect(await Promise.all([disable(), disable()])).toEqual(
      expect.arrayContaining(['done', 'unchanged']),
    )
    // One disable, one audit entry: the loser and every `unchanged` write nothing.
    expect((await auditLog(issuerId)).length).toBe(audited + 1)
    const now = await store.getEndpoint(issuerId, endpoint.endpointId)
    expect(now).toMatchObject({
      enabled: false,
      disabledReason: 'failing',
      disabledAt: '2026-11-30T00:00:00.000Z',
    })
    expect(
      await store.disableEndpoint(issuerId, endpoint.endpointId, {
        reason: 'gone',
        at: '2026-11-30T00:00:00.000Z',
        audit: audit(issuerId, 'webhook.disable'),
      }),
    ).toBe('unchanged')
    expect(
      await store.recordEndpointOutcome(issuerId, `we_${base32()}`, {
        kind: 'success',
        at: '2026-11-23T00:00:00.000Z',
      }),
    ).toBe('missing')
    // The sender's bookkeeping creates no endpoint.
    expect(
      await store.disableEndpoint(issuerId, `we_${base32()}`, {
        reason: 'gone',
        at: '2026-11-30T00:00:00.000Z',
        audit: audit(issuerId, 'webhook.disable'),
      }),
    ).toBe('unchanged')
    expect((await auditLog(issuerId)).length).toBe(audited + 1)
  })
})

describe('messages', () => {
  it('puts once, records attempts, answers missing for an unknown message', async () => {
    const endpointId = `we_${base32()}`
    const message = messageOf(endpointId, '2026-11-20T10:00:00.000Z')
    expect(await store.putMessage(message)).toBe('done')
    expect(await store.putMessage({ ...message, body: '{"other":1}' })).toBe('exists')
    const attempt = {
      at: '2026-11-20T10:00:01.000Z',
      status: 500,
      latencyMs: 12,
      trigger: 'auto' as const,
    }
    expect(
      await store.recordAttempt(endpointId, message.messageId, attempt, {
        status: 'pending',
        nextAttemptAt: '2026-11-20T10:00:06.000Z',
      }),
    ).toBe('done')
    expect(
      await store.recordAttempt(
        endpointId,
        message.messageId,
        { ...attempt, status: 200 },
        { status: 'delivered' },
      ),
    ).toBe('done')
    const stored = await store.getMessage(endpointId, message.messageId)
    expect(stored?.body).toBe('{}')
    expect(stored?.status).toBe('delivered')
    expect(stored?.nextAttemptAt).toBeUndefined()
    expect(stored?.attempts.map((a) => a.status)).toEqual([500, 200])
    expect(
      await store.recordAttempt(endpointId, messageOf(endpointId, attempt.at).messageId, attempt, {
        status: 'failed',
      }),
    ).toBe('missing')
    // No item was made by the refused attempt.
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: config.tables.webhooks, Key: messageKey(endpointId, 'x') }),
    )
    expect(Item).toBeUndefined()
  })

  it('lists newest first or oldest first, since a time, a page at a time', async () => {
    const endpointId = `we_${base32()}`
    const times = Array.from({ length: 7 }, (_, i) => `2026-11-2${i}T00:00:00.000Z`)
    const messages = times.map((t) => messageOf(endpointId, t))
    await Promise.all(messages.map((m) => store.putMessage(m)))
    // Another endpoint's messages are never listed.
    await store.putMessage(messageOf(`we_${base32()}`, times[3] as string))
    const walk = async (query: { since?: string; oldestFirst?: boolean }) => {
      const seen: string[] = []
      const pages: number[] = []
      let cursor: string | undefined
      do {
        const page = await store.listMessages(endpointId, {
          limit: 3,
          ...query,
          ...(cursor === undefined ? {} : { cursor }),
        })
        seen.push(...page.messages.map((m) => m.createdAt))
        pages.push(page.messages.length)
        cursor = page.next
      } while (cursor !== undefined)
      return { seen, pages }
    }
    expect(await walk({})).toEqual({ seen: [...times].reverse(), pages: [3, 3, 1] })
    expect(await walk({ oldestFirst: true })).toEqual({ seen: times, pages: [3, 3, 1] })
    // Since the 4th (inclusive): 4 messages, and a full last page promises no empty one.
    expect(await walk({ since: times[3] as string, oldestFirst: true })).toEqual({
      seen: times.slice(3),
      pages: [3, 1],
    })
    expect(await walk({ since: '2026-11-24T00:00:00.000Z' })).toEqual({
      seen: times.slice(4).reverse(),
      pages: [3],
    })
    const page = await store.listMessages(endpointId, { limit: 3 })
    expect(decodeMessageCursor(page.next as string)).toBe(page.messages[2]?.messageId)
    expect(decodeMessageCursor('bm90LWEtY3Vyc29y')).toBeUndefined()
    await expect(
      store.listMessages(endpointId, { limit: 3, cursor: 'bm90LWEtY3Vyc29y' }),
    ).rejects.toBeInstanceOf(InvalidMessageCursor)
  })
})

describe('the pool-low mark', () => {
  it('fires once per crossing, says whether its event went out, re-arms', async () => {
    const programId = `pr_${randomUUID()}`
    const at = '2026-11-20T10:00:00.000Z'
    const mark = (when: string) =>
      store.markPoolLow({ programId, at: when, remaining: 5, threshold: 10 })
    const [a, b] = await Promise.all([mark(at), mark(at)])
    expect([a.outcome, b.outcome].sort()).toEqual(['already', 'fired'])
    const again = await mark('2026-11-20T11:00:00.000Z')
    expect(again).toMatchObject({ outcome: 'already', mark: { at, programId } })
    expect(again.mark.sent).toBeUndefined()
    await store.markPoolLowSent(programId, '2026-11-20T11:00:00.000Z')
    expect((await mark(at)).mark.sent).toBeUndefined()
    await store.markPoolLowSent(programId, at)
    expect((await mark(at)).mark.sent).toBe(true)
    expect(await store.clearPoolLow(programId)).toBe(true)
    expect(await store.clearPoolLow(programId)).toBe(false)
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: config.tables.webhooks, Key: poolLowKey(programId) }),
    )
    expect(Item).toBeUndefined()
    expect((await mark('2026-11-21T00:00:00.000Z')).outcome).toBe('fired')
  })
})
