// zod/mini, as the other schemas: the WebhookSender's cold start stays short.
import * as z from 'zod/mini'
import { readJsonWith } from '../domain/validation'
import {
  WEBHOOK_EVENT_KINDS,
  WEBHOOK_TEST_KIND,
  type WebhookEventData,
  type WebhookQueueMessage,
} from '../domain/webhooks'

/**
 * The messages on the Webhooks queue (domain/webhooks.ts WebhookQueueMessage), as their producers
 * write them: GrantStream's events (wiring/grant-stream.consumer.ts), the management API's test and
 * replays (webhook-endpoints.ts), the sender's own next attempts, hops and replay pages
 * (webhook-sender.ts). A body of any other shape is not ours: the consumer fails it towards the
 * dead letters.
 */
const id = z.string().check(z.minLength(1))
const time = z.string().check(
  z.minLength(1),
  z.refine((value) => !Number.isNaN(Date.parse(value))),
)

const EventMessage = z.object({
  kind: z.literal('event'),
  event: z.object({
    eventId: id,
    type: z.enum([...WEBHOOK_EVENT_KINDS, WEBHOOK_TEST_KIND]),
    issuerId: id,
    mode: z.enum(['TEST', 'LIVE']),
    occurredAt: time,
    // Made by the producer from a record it read; the sender passes it on as it is.
    data: z.custom<WebhookEventData>((value) => typeof value === 'object' && value !== null),
  }),
})

const DeliveryMessage = z.object({
  kind: z.literal('delivery'),
  issuerId: id,
  endpointId: id,
  messageId: id,
  attempt: z.int().check(z.minimum(0)),
  trigger: z.enum(['auto', 'replay', 'test']),
  notBefore: z.optional(time),
})

const ReplayMessage = z.object({
  kind: z.literal('replay'),
  issuerId: id,
  endpointId: id,
  since: time,
  cursor: z.optional(id),
})

export const WebhookQueueMessageSchema = z.discriminatedUnion('kind', [
  EventMessage,
  DeliveryMessage,
  ReplayMessage,
])

/** A message body this queue's producers could have written, or undefined. */
export const parseWebhookQueueMessage = (body: string): WebhookQueueMessage | undefined => {
  const read = readJsonWith(WebhookQueueMessageSchema, body)
  return read.ok ? read.value : undefined
}
