import { randomBytes } from 'node:crypto'
import { ValidationFailed, WebhookMessageNotFound } from '../domain/errors'
import { type QueryParameters, readPageQuery } from '../domain/page-query'
import {
  messageKey,
  payloadOf,
  WEBHOOK_LIMITS,
  WEBHOOK_MESSAGE_ID,
  WEBHOOK_TEST_KIND,
  type WebhookEvent,
  type WebhookMessageRecord,
  webhookEventId,
  webhookMessageId,
} from '../domain/webhooks'
import type { WebhookCaller, WebhookEndpointContext } from './webhook-endpoint-context'
import { WEBHOOK_MESSAGE_PAGE } from './webhook-endpoint-rules'

/** An endpoint's delivery log, its test event and its replays (core/webhook-endpoints.ts). */
export const messageActions = ({
  deps,
  store,
  clock,
  audit,
  requireEndpoint,
  requireEnabled,
  send,
}: WebhookEndpointContext) => {
  /** A first attempt of one message, asked for by a person: a test, or a replay. */
  const sendDelivery = (
    caller: WebhookCaller,
    endpointId: string,
    messageId: string,
    trigger: 'test' | 'replay',
  ) =>
    send(caller, {
      kind: 'delivery',
      issuerId: caller.issuerId,
      endpointId,
      messageId,
      attempt: 0,
      trigger,
    })

  return {
    /** A `webhook.test` message, delivered as any other (the sender signs it): its id. */
    async sendTest(caller: WebhookCaller, endpointId: string) {
      const endpoint = await requireEnabled(caller, endpointId)
      const now = clock()
      const at = new Date(now).toISOString()
      const event: WebhookEvent = {
        eventId: webhookEventId('webhook.test', endpointId, at, randomBytes(8).toString('hex')),
        type: WEBHOOK_TEST_KIND,
        issuerId: caller.issuerId,
        mode: endpoint.mode,
        occurredAt: at,
        data: { endpointId, message: 'A test event, sent from the management API.' },
      }
      const messageId = webhookMessageId(event, endpointId)
      const message: WebhookMessageRecord = {
        ...messageKey(endpointId, messageId),
        messageId,
        endpointId,
        issuerId: caller.issuerId,
        mode: endpoint.mode,
        eventId: event.eventId,
        type: event.type,
        body: JSON.stringify(payloadOf(event)),
        status: 'pending',
        attempts: [],
        nextAttemptAt: at,
        createdAt: at,
        purgeAt: Math.floor(now / 1000) + WEBHOOK_LIMITS.keepDays * 86_400,
      }
      await store.putMessage(message, { signal: caller.signal })
      await deps.audit(
        audit(caller, 'webhook.test', endpointId, { mode: endpoint.mode, messageId }, now),
        { signal: caller.signal },
      )
      await sendDelivery(caller, endpointId, messageId, 'test')
      return messageId
    },

    /** The delivery log, newest first, a page at a time (`?limit&cursor`: domain/page-query.ts). */
    async messages(caller: WebhookCaller, endpointId: string, query: QueryParameters | undefined) {
      const { limit, cursor } = readPageQuery(query, {
        page: WEBHOOK_MESSAGE_PAGE,
        decode: (given) => (deps.isCursor(given) ? given : undefined),
        next: 'next',
      }).done()
      await requireEndpoint(caller, endpointId)
      return store.listMessages(
        endpointId,
        { limit, ...(cursor === undefined ? {} : { cursor }) },
        { signal: caller.signal },
      )
    },

    /** One message sent again, with its id (`webhook-id`) unchanged. */
    async replayMessage(caller: WebhookCaller, endpointId: string, messageId: string) {
      const endpoint = await requireEnabled(caller, endpointId)
      if (!WEBHOOK_MESSAGE_ID.test(messageId)) throw new WebhookMessageNotFound(messageId)
      const message = await store.getMessage(endpointId, messageId, { signal: caller.signal })
      if (!message) throw new WebhookMessageNotFound(messageId)
      await deps.audit(
        audit(caller, 'webhook.replay', endpointId, { mode: endpoint.mode, messageId }, clock()),
        { signal: caller.signal },
      )
      await sendDelivery(caller, endpointId, messageId, 'replay')
      return messageId
    },

    /**
     * Every message since `since` sent again, in the background (the sender pages through them);
     * its answer is the start used: no earlier than the log keeps (WEBHOOK_LIMITS.keepDays).
     */
    async replaySince(caller: WebhookCaller, endpointId: string, input: { since?: unknown }) {
      const now = clock()
      const time =
        typeof input.since === 'string' &&
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(input.since)
          ? Date.parse(input.since)
          : Number.NaN
      if (Number.isNaN(time) || time > now) {
        throw new ValidationFailed([
          {
            field: 'since',
            message:
              'must be a time in the past, ISO 8601 with its offset (such as 2026-11-26T09:00:00Z)',
          },
        ])
      }
      const endpoint = await requireEnabled(caller, endpointId)
      // Only kept messages replay: an older start would promise what the log no longer holds.
      const kept = now - WEBHOOK_LIMITS.keepDays * 86_400_000
      const since = new Date(Math.max(time, kept)).toISOString()
      await deps.audit(
        audit(caller, 'webhook.replay', endpointId, { mode: endpoint.mode, since }, now),
        { signal: caller.signal },
      )
      await send(caller, { kind: 'replay', issuerId: caller.issuerId, endpointId, since })
      return since
    },
  }
}
