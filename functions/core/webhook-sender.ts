import type { SQSBatchResponse, SQSEvent } from 'aws-lambda'
import type { Mode } from '../domain/api-key'
import { WEBHOOK_SENDER } from '../domain/people'
import { webhookHeaders } from '../domain/webhook-signature'
import {
  type EndpointDisabledReason,
  nextAttemptDelay,
  payloadOf,
  SQS_MAX_DELAY_SECONDS,
  WEBHOOK_LIMITS,
  WEBHOOK_TEST_KIND,
  type WebhookAttempt,
  type WebhookEndpointRecord,
  type WebhookEvent,
  type WebhookMessageRecord,
  type WebhookQueueMessage,
  webhookEventId,
  webhookMessageId,
} from '../domain/webhooks'
import { logger } from '../runtime/logger'
import { type QueueEntry, type QueueSender, sendAll } from '../runtime/queue-sender'
import type { WebhookHttp } from '../runtime/safe-http'
import { auditEntry } from '../stores/audit'
import type { DynamoDbWebhookStore } from '../stores/webhooks.dynamodb'
import { parseWebhookQueueMessage } from './webhook-queue-message.schema'

/**
 * The WebhookSender consumer (functions/consumers.ts; docs/webhooks.md): the Webhooks queue's
 * three kinds of message (domain/webhooks.ts WebhookQueueMessage).
 *
 * - `event` (from GrantStream, or this consumer's own pool check): one message item per endpoint
 *   of the issuer in the event's mode that is enabled and subscribes to the kind (id derived from
 *   the event and the endpoint, so a repeated event makes no second message), and one `delivery`
 *   per new message. A repeated event whose message has no attempt yet sends its delivery again
 *   (the first send may have been lost): at least once, never a second message.
 * - `delivery`: one attempt. Before its `notBefore` it is put back with a delay (SQS delays at most
 *   900 s, so a long wait is several hops). An automatic attempt runs only if the message still
 *   expects it (pending, with this very `nextAttemptAt`): a delivery received twice, or overtaken
 *   by a replay, does nothing. It signs afresh (`webhook-timestamp` = the real time of this
 *   attempt, whatever the injected clock says) with the endpoint's live secrets, posts with the
 *   SSRF-safe client, then schedules the next attempt (as a new message) BEFORE recording this
 *   one: if the record fails, this delivery comes back and runs again, and the early next delivery
 *   finds another `nextAttemptAt` and does nothing. 2xx: delivered. 410: the endpoint is disabled
 *   (`gone`) at once. Else the retry schedule (nextAttemptDelay, Retry-After honoured); spent:
 *   the message is failed. An endpoint whose every attempt failed for 5 days is disabled
 *   (`failing`) and the issuer's owners e-mailed, once.
 * - `replay`: a page (100) of an endpoint's messages since a time, oldest first: a `replay`
 *   delivery each, then the next page as another `replay` message.
 *
 * program.pool_low: on a grant's creation (shares taken) and on its rejection, expiry or cancel
 * (shares back), when an endpoint of the issuer in that mode wants program.pool_low: one snapshot
 * of the program's head and shards; at or under the head's `poolLowThreshold` the pool-low mark
 * is put (once per crossing), and its event fanned out as any other; above it, the mark is
 * cleared so the next crossing fires again.
 *
 * A disabled or deleted endpoint gets nothing: a delivery due for it marks its message `failed`
 * (no attempt is recorded); a replay after re-enabling sends it again.
 */

/** What the sender needs of the store (webhooks.dynamodb.ts). */
export type WebhookSenderStore = Pick<
  DynamoDbWebhookStore,
  | 'listEndpoints'
  | 'getEndpoint'
  | 'putMessage'
  | 'getMessage'
  | 'recordAttempt'
  | 'listMessages'
  | 'recordEndpointOutcome'
  | 'disableEndpoint'
  | 'claimAttempt'
  | 'failMessage'
  | 'markPoolLow'
  | 'markPoolLowSent'
  | 'clearPoolLow'
>

/** A program's pool in one snapshot (head and shards read together), or undefined without a pool or threshold. */
export type PoolSnapshot = {
  issuerId: string
  mode: Mode
  pool: number
  remaining: number
  threshold: number
}

export type WebhookSenderDeps = {
  store: WebhookSenderStore
  /** The Webhooks queue: deliveries, hops, replay pages. */
  queue: QueueSender
  http: WebhookHttp
  /** Opens a sealed secret (runtime/secret-box.ts). */
  openSecret: (sealed: string, endpointId: string) => Promise<string>
  /** The pool of a program with a `poolLowThreshold`, in one snapshot; undefined otherwise. */
  poolOf: (programId: string) => Promise<PoolSnapshot | undefined>
  /** Tells the issuer's owners that an endpoint was disabled after failing for days. */
  notifyDisabled: (endpoint: WebhookEndpointRecord) => Promise<void>
  /** The schedule's clock (ms): nextAttemptAt, failingSince, notBefore. Tests move it. */
  clock: () => number
  /** The real time (ms) of an attempt: its `webhook-timestamp`, never the injected clock. */
  realNow?: () => number
  /** Jitter of the retry schedule, [0, 1). */
  random?: () => number
  /** A monotonic clock (ms) for the endpoint-list cache. */
  monotonic?: () => number
  /** How long an issuer's endpoint list is trusted (ms); 0: read every time. */
  endpointsTtlMs?: number
}

/** An issuer's endpoints are read at most once a second per process: a change shows within that. */
export const ENDPOINTS_TTL_MS = 1_000
/** Messages a replay page sends. */
export const REPLAY_PAGE = 100
/** Opened secrets are kept this long per process (a KMS Decrypt per attempt is avoided). */
const SECRET_TTL_MS = 5 * 60_000
const DAY_MS = 24 * 3600 * 1000
/**
 * How long an automatic attempt is claimed: longer than an attempt takes (15 s and a few writes),
 * shorter than the queue's visibility timeout (360 s), after which a dead sender's delivery returns.
 */
const CLAIM_MS = 120_000
/** A succeeding endpoint's `lastSuccessAt` is written at most this often. */
const LAST_SUCCESS_EVERY_MS = 60_000

/** The grant events that move a pool: shares taken, or given back. */
const POOL_MOVES = new Set(['grant.created', 'grant.rejected', 'grant.expired', 'grant.canceled'])

const isString = (v: unknown): v is string => typeof v === 'string' && v !== ''
type Delivery = Extract<WebhookQueueMessage, { kind: 'delivery' }>
type Replay = Extract<WebhookQueueMessage, { kind: 'replay' }>

/** Whether an endpoint takes an event: same mode, enabled, subscribed (a test event: only its own endpoint). */
const takes = (endpoint: WebhookEndpointRecord, event: WebhookEvent) => {
  if (endpoint.mode !== event.mode || !endpoint.enabled) return false
  if (event.type === WEBHOOK_TEST_KIND) {
    return (event.data as { endpointId?: string }).endpointId === endpoint.endpointId
  }
  return (endpoint.kinds as readonly string[]).includes(event.type)
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host
  } catch {
    return 'invalid-url'
  }
}

export const makeWebhookSender = (deps: WebhookSenderDeps) => {
  const { store, queue, http, clock } = deps
  const realNow = deps.realNow ?? Date.now
  const random = deps.random ?? Math.random
  const monotonic = deps.monotonic ?? (() => performance.now())
  const ttl = deps.endpointsTtlMs ?? ENDPOINTS_TTL_MS
  const iso = (ms: number) => new Date(ms).toISOString()

  // ---- caches (per process) ----
  const endpointCache = new Map<string, { at: number; list: Promise<WebhookEndpointRecord[]> }>()
  const endpointsOf = (issuerId: string) => {
    const hit = endpointCache.get(issuerId)
    if (hit !== undefined && monotonic() - hit.at < ttl) return hit.list
    const list = store.listEndpoints(issuerId)
    // A failed read is not kept.
    list.catch(() => endpointCache.delete(issuerId))
    if (endpointCache.size > 10_000) endpointCache.clear()
    endpointCache.set(issuerId, { at: monotonic(), list })
    return list
  }
  const secretCache = new Map<string, { at: number; plain: Promise<string> }>()
  const open = (sealed: string, endpointId: string) => {
    const key = `${endpointId} ${sealed}`
    const hit = secretCache.get(key)
    if (hit !== undefined && monotonic() - hit.at < SECRET_TTL_MS) return hit.plain
    const plain = deps.openSecret(sealed, endpointId)
    plain.catch(() => secretCache.delete(key))
    if (secretCache.size > 1_000) secretCache.clear()
    secretCache.set(key, { at: monotonic(), plain })
    return plain
  }

  const send = (messages: readonly { message: WebhookQueueMessage; delaySeconds?: number }[]) =>
    sendAll(
      queue,
      messages.map(
        ({ message, delaySeconds }, i): QueueEntry => ({
          id: `m${i}`,
          body: JSON.stringify(message),
          ...(delaySeconds ? { delaySeconds } : {}),
        }),
      ),
    )

  /** Seconds to wait until `at` (ms), at most one SQS hop, at least 1. */
  /** The audit entry of the sender turning an endpoint off: the host only, never the URL's path. */
  const disableAudit = (
    endpoint: WebhookEndpointRecord,
    reason: EndpointDisabledReason,
    failingSince?: string,
  ) =>
    auditEntry({
      issuerId: endpoint.issuerId,
      actor: WEBHOOK_SENDER,
      action: 'webhook.disable',
      target: { type: 'webhook_endpoint', id: endpoint.endpointId },
      now: clock(),
      details: {
        mode: endpoint.mode,
        host: hostOf(endpoint.url),
        reason,
        ...(failingSince === undefined ? {} : { failingSince }),
      },
    })

  const hopDelay = (at: number) =>
    Math.min(SQS_MAX_DELAY_SECONDS, Math.max(1, Math.ceil((at - clock()) / 1000)))

  // ---- event: fan out ----

  const fanOut = async (event: WebhookEvent) => {
    const targets = (await endpointsOf(event.issuerId)).filter((e) => takes(e, event))
    const trigger: WebhookAttempt['trigger'] = event.type === WEBHOOK_TEST_KIND ? 'test' : 'auto'
    const body = JSON.stringify(payloadOf(event))
    const deliveries = await Promise.all(
      targets.map(async (endpoint): Promise<Delivery | undefined> => {
        const messageId = webhookMessageId(event, endpoint.endpointId)
        const now = clock()
        const message: WebhookMessageRecord = {
          pk: '',
          sk: '',
          messageId,
          endpointId: endpoint.endpointId,
          issuerId: event.issuerId,
          mode: event.mode,
          eventId: event.eventId,
          type: event.type,
          body,
          status: 'pending',
          attempts: [],
          createdAt: iso(now),
          purgeAt: Math.floor(now / 1000) + WEBHOOK_LIMITS.keepDays * 24 * 3600,
        }
        if ((await store.putMessage(message)) === 'exists') {
          // A repeated event: its delivery again only if none has been attempted.
          const stored = await store.getMessage(endpoint.endpointId, messageId)
          if (stored === undefined || stored.attempts.length > 0 || stored.status !== 'pending') {
            return undefined
          }
        }
        return {
          kind: 'delivery',
          issuerId: event.issuerId,
          endpointId: endpoint.endpointId,
          messageId,
          attempt: 0,
          trigger,
        }
      }),
    )
    const due = deliveries.filter((d): d is Delivery => d !== undefined)
    if (due.length > 0) await send(due.map((message) => ({ message })))
    return { endpoints: targets.length, deliveries: due.length }
  }

  // ---- program.pool_low ----

  const checkPool = async (event: WebhookEvent) => {
    if (!POOL_MOVES.has(event.type)) return undefined
    const subscribed = (await endpointsOf(event.issuerId)).some(
      (e) => e.mode === event.mode && e.enabled && e.kinds.includes('program.pool_low'),
    )
    if (!subscribed) return undefined
    const programId = (event.data as { programId?: string }).programId
    if (!isString(programId)) return undefined
    const pool = await deps.poolOf(programId)
    if (pool === undefined || pool.issuerId !== event.issuerId) return undefined
    if (pool.remaining > pool.threshold) {
      await store.clearPoolLow(programId)
      return 'above' as const
    }
    const { outcome, mark } = await store.markPoolLow({
      programId,
      at: iso(clock()),
      remaining: pool.remaining,
      threshold: pool.threshold,
    })
    // A mark whose event went out is done; one put by a call that died before sending is sent now.
    if (outcome === 'already' && mark.sent) return 'already' as const
    await fanOut({
      eventId: webhookEventId('program.pool_low', programId, mark.at),
      type: 'program.pool_low',
      issuerId: pool.issuerId,
      mode: pool.mode,
      occurredAt: mark.at,
      data: {
        programId,
        mode: pool.mode,
        pool: pool.pool,
        remaining: mark.remaining,
        threshold: mark.threshold,
      },
    })
    await store.markPoolLowSent(programId, mark.at)
    return 'fired' as const
  }

  // ---- delivery ----

  const deliver = async (d: Delivery) => {
    if (d.notBefore !== undefined && Date.parse(d.notBefore) > clock()) {
      await send([{ message: d, delaySeconds: hopDelay(Date.parse(d.notBefore)) }])
      return 'hop'
    }
    const [endpoint, message] = await Promise.all([
      store.getEndpoint(d.issuerId, d.endpointId),
      store.getMessage(d.endpointId, d.messageId),
    ])
    if (message === undefined) return 'no_message'
    if (d.trigger === 'auto') {
      // Only the attempt the message expects: a repeat, or one overtaken by a replay, does nothing.
      const expected =
        d.notBefore === undefined
          ? message.attempts.length === 0
          : message.nextAttemptAt === d.notBefore
      if (message.status !== 'pending' || !expected) return 'superseded'
    }
    if (endpoint === undefined || !endpoint.enabled || endpoint.mode !== message.mode) {
      await store.failMessage(d.endpointId, d.messageId)
      return 'endpoint_off'
    }
    if (d.trigger === 'auto') {
      // Two copies of this delivery at once: one attempt. A sender that dies holding the claim
      // leaves it to run out before this delivery comes back (the visibility timeout is longer).
      const claim = await store.claimAttempt(d.endpointId, d.messageId, {
        nextAttemptAt: d.notBefore,
        now: iso(clock()),
        until: iso(clock() + CLAIM_MS),
      })
      if (claim === 'taken') return 'superseded'
    }

    const now = clock()
    const live = endpoint.secrets.filter(
      (s) => s.expiresAt === undefined || Date.parse(s.expiresAt) > now,
    )
    const secrets = await Promise.all(live.map((s) => open(s.sealed, endpoint.endpointId)))
    const started = realNow()
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'virtual-share-grants-webhooks/1',
      ...webhookHeaders({
        id: message.messageId,
        timestamp: Math.floor(started / 1000),
        body: message.body,
        secrets,
      }),
    }
    const result = await http.post(endpoint.url, headers, message.body)
    const attempt: WebhookAttempt = {
      at: iso(started),
      ...(result.status === undefined ? {} : { status: result.status }),
      ...(result.error === undefined ? {} : { error: result.error }),
      latencyMs: result.latencyMs,
      ...(result.response === undefined ? {} : { response: result.response }),
      trigger: d.trigger,
    }
    const at = iso(clock())
    const ok = result.status !== undefined && result.status >= 200 && result.status < 300
    if (ok) {
      await store.recordAttempt(d.endpointId, d.messageId, attempt, { status: 'delivered' })
      // The endpoint is written only when that changes something worth a write (it bumps the
      // version a person's edit is conditioned on): it was failing, or its last success is a
      // minute old. A busy endpoint's lastSuccessAt is right to the minute.
      const last = endpoint.lastSuccessAt === undefined ? 0 : Date.parse(endpoint.lastSuccessAt)
      if (endpoint.failingSince !== undefined || clock() - last >= LAST_SUCCESS_EVERY_MS) {
        await store.recordEndpointOutcome(d.issuerId, d.endpointId, { kind: 'success', at })
      }
      return 'delivered'
    }
    if (result.status === 410) {
      await store.recordAttempt(d.endpointId, d.messageId, attempt, { status: 'failed' })
      await store.disableEndpoint(d.issuerId, d.endpointId, {
        reason: 'gone',
        at,
        audit: disableAudit(endpoint, 'gone'),
      })
      logger.warn('Webhook endpoint answered 410 Gone: disabled', {
        endpointId: d.endpointId,
        host: hostOf(endpoint.url),
      })
      return 'gone'
    }

    const wait = nextAttemptDelay(d.attempt + 1, random, result.retryAfterSeconds)
    const nextAt = wait === undefined ? undefined : iso(clock() + wait)
    if (nextAt !== undefined) {
      // Sent before the attempt is recorded: see the module's comment.
      const next: Delivery = {
        kind: 'delivery',
        issuerId: d.issuerId,
        endpointId: d.endpointId,
        messageId: d.messageId,
        attempt: d.attempt + 1,
        trigger: 'auto',
        notBefore: nextAt,
      }
      await send([{ message: next, delaySeconds: hopDelay(Date.parse(nextAt)) }])
    }
    await store.recordAttempt(
      d.endpointId,
      d.messageId,
      attempt,
      nextAt === undefined ? { status: 'failed' } : { status: 'pending', nextAttemptAt: nextAt },
    )
    // Failing since the first failure after the last success: written once, then read.
    const after =
      endpoint.failingSince === undefined
        ? await store.recordEndpointOutcome(d.issuerId, d.endpointId, { kind: 'failure', at })
        : endpoint
    if (
      after !== 'missing' &&
      after.enabled &&
      after.failingSince !== undefined &&
      clock() - Date.parse(after.failingSince) >= WEBHOOK_LIMITS.disableAfterFailingDays * DAY_MS
    ) {
      // On condition that it is still failing since then (a success or a re-enable meanwhile wins).
      const disabled = await store.disableEndpoint(d.issuerId, d.endpointId, {
        reason: 'failing',
        at,
        failingSince: after.failingSince,
        audit: disableAudit(endpoint, 'failing', after.failingSince),
      })
      if (disabled === 'done') {
        // This message's next attempt (if any) finds the endpoint off and fails the message.
        logger.warn('Webhook endpoint failing for days: disabled', {
          endpointId: d.endpointId,
          failingSince: after.failingSince,
        })
        await deps
          .notifyDisabled({ ...after, enabled: false, disabledReason: 'failing', disabledAt: at })
          .catch((error) =>
            // The endpoint stays disabled and shows why in the console; the mail is not retried.
            logger.error('Webhook endpoint disabled, owners not e-mailed', {
              endpointId: d.endpointId,
              error: error instanceof Error ? error.name : 'unknown',
            }),
          )
        return 'disabled'
      }
    }
    return nextAt === undefined ? 'failed' : 'retry'
  }

  // ---- replay ----

  const replay = async (r: Replay) => {
    const endpoint = await store.getEndpoint(r.issuerId, r.endpointId)
    if (endpoint === undefined) return { sent: 0 }
    const page = await store.listMessages(r.endpointId, {
      limit: REPLAY_PAGE,
      since: r.since,
      oldestFirst: true,
      ...(r.cursor === undefined ? {} : { cursor: r.cursor }),
    })
    const messages: { message: WebhookQueueMessage }[] = page.messages.map((m) => ({
      message: {
        kind: 'delivery',
        issuerId: r.issuerId,
        endpointId: r.endpointId,
        messageId: m.messageId,
        attempt: 0,
        trigger: 'replay',
      },
    }))
    if (page.next !== undefined) {
      messages.push({ message: { ...r, cursor: page.next } })
    }
    if (messages.length > 0) await send(messages)
    return { sent: page.messages.length, more: page.next !== undefined }
  }

  const handle = async (message: WebhookQueueMessage) => {
    switch (message.kind) {
      case 'event': {
        const fanned = await fanOut(message.event)
        const pool = await checkPool(message.event)
        return { ...fanned, ...(pool === undefined ? {} : { pool }) }
      }
      case 'delivery':
        return { outcome: await deliver(message) }
      case 'replay':
        return await replay(message)
    }
  }

  /**
   * The SQS handler: the batch's messages side by side (a delivery may wait up to 15 s for its
   * receiver), each failure reported alone (partial batch response): only those come back.
   */
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failures: SQSBatchResponse['batchItemFailures'] = []
    await Promise.all(
      event.Records.map(async (record) => {
        const message = parseWebhookQueueMessage(record.body)
        if (message === undefined) {
          logger.error('Webhooks message of an unknown shape', { messageId: record.messageId })
          failures.push({ itemIdentifier: record.messageId })
          return
        }
        try {
          const outcome = await handle(message)
          logger.debug('Webhooks message', { kind: message.kind, ...outcome })
        } catch (error) {
          logger.warn('Webhooks message failed; it comes back', {
            kind: message.kind,
            error: error instanceof Error ? error.name : 'unknown',
          })
          failures.push({ itemIdentifier: record.messageId })
        }
      }),
    )
    return { batchItemFailures: failures }
  }
}
