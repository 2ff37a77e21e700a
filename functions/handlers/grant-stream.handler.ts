import { SQSClient } from '@aws-sdk/client-sqs'
import { runtimeFrom } from '../composition'
import { OFFER_MAIL_QUEUE } from '../consumers'
import { makeGrantStreamHandler } from '../core/grant-stream.factory'
import { sqsQueueSender } from '../runtime/queue-sender'

/**
 * Lambda's entry for GrantStream (functions/consumers.ts): the runtime, the SQS client and the
 * queue's URL (set by the stack) are read once, at cold start; a missing URL stops it at init.
 */
const runtime = runtimeFrom(process.env)
const queueUrl = process.env[OFFER_MAIL_QUEUE.urlVariable]
if (queueUrl === undefined || queueUrl === '') {
  throw new Error(`Missing required environment variable ${OFFER_MAIL_QUEUE.urlVariable}.`)
}
const sqs = new SQSClient({ region: runtime.config.awsRegion })

export const handler = makeGrantStreamHandler(runtime, {
  offerMail: sqsQueueSender(sqs, queueUrl),
})
