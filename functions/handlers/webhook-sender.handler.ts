import { consumerRuntime } from '../wiring/queue-runtime'
import { makeWebhookSenderHandler } from '../wiring/webhook-sender.consumer'

/**
 * Lambda's entry for WebhookSender (functions/consumers.ts): the runtime and the Webhooks queue's
 * sender (deliveries, hops and replay pages go back on its own queue) are built once, at cold start.
 */
export const handler = makeWebhookSenderHandler(consumerRuntime('WebhookSender', process.env))
