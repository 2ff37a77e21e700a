import { SQSClient } from '@aws-sdk/client-sqs'
import { runtimeFrom } from '../composition'
import { OFFER_MAIL_QUEUE, type QueueSpec, WEBHOOKS_QUEUE } from '../consumers'
import { sqsQueueSender } from '../runtime/queue-sender'
import { makeGrantStreamHandler } from '../wiring/grant-stream.consumer'

/**
 * Lambda's entry for GrantStream (functions/consumers.ts): the runtime, the SQS client and the
 * queues' URLs (OfferMail, Webhooks: set by the stack from the consumer's `sends`) are read once,
 * at cold start; a missing URL stops it at init.
 */
const runtime = runtimeFrom(process.env)
const urlOf = (queue: Pick<QueueSpec, 'urlVariable'>) => {
  const url = process.env[queue.urlVariable]
  if (url === undefined || url === '') {
    throw new Error(`Missing required environment variable ${queue.urlVariable}.`)
  }
  return url
}
const offerMailUrl = urlOf(OFFER_MAIL_QUEUE)
const webhooksUrl = urlOf(WEBHOOKS_QUEUE)
const sqs = new SQSClient({ region: runtime.config.awsRegion })

export const handler = makeGrantStreamHandler(runtime, {
  offerMail: sqsQueueSender(sqs, offerMailUrl),
  webhooks: sqsQueueSender(sqs, webhooksUrl),
})
