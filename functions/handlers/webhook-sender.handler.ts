import { SQSClient } from '@aws-sdk/client-sqs'
import { runtimeFrom } from '../composition'
import { WEBHOOKS_QUEUE } from '../consumers'
import { sqsQueueSender } from '../runtime/queue-sender'
import { makeWebhookSenderHandler } from '../wiring/webhook-sender.consumer'

/**
 * Lambda's entry for WebhookSender (functions/consumers.ts): the runtime, the SQS client and the
 * Webhooks queue's URL (set by the stack: the sender puts deliveries, hops and replay pages back
 * on its own queue) are read once, at cold start; a missing URL stops it at init.
 */
const runtime = runtimeFrom(process.env)
const queueUrl = process.env[WEBHOOKS_QUEUE.urlVariable]
if (queueUrl === undefined || queueUrl === '') {
  throw new Error(`Missing required environment variable ${WEBHOOKS_QUEUE.urlVariable}.`)
}
const sqs = new SQSClient({ region: runtime.config.awsRegion })

export const handler = makeWebhookSenderHandler(runtime, {
  queue: sqsQueueSender(sqs, queueUrl),
})
