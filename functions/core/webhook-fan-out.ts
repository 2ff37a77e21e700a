import {
  payloadOf,
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
import {
  type Delivery,
  isString,
  REPLAY_PAGE,
  type Replay,
  type SenderContext,
} from './webhook-sender-context'

/** The grant events that move a pool: shares taken, or given back. */
const POOL_MOVES = new Set(['grant.created', 'grant.rejected', 'grant.expired', 'grant.canceled'])

/** Whether an endpoint takes an event: same mode, enabled, subscribed (a test event: only its own endpoint). */
const takes = (endpoint: WebhookEndpointRecord, event: WebhookEvent) => {
  if (endpoint.mode !== event.mode || !endpoint.enabled) return false
  if (event.type === WEBHOOK_TEST_KIND) {
    return (event.data as { endpointId?: string }).endpointId === endpoint.endpointId
  }
  return (endpoint.kinds as readonly string[]).includes(event.type)
}

/**
 * An event's messages and deliveries, the pool-low check after a grant event, and a replay page
 * (core/webhook-sender.ts).
 */
export const eventSteps = ({ deps, store, clock, iso, endpointsOf, send }: SenderContext) => {
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

  return { fanOut, checkPool, replay }
}
