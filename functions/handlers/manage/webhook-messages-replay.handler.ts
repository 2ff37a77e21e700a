import { SQSClient } from '@aws-sdk/client-sqs'
import { runtimeFrom } from '../../composition'
import { WEBHOOKS_QUEUE } from '../../consumers'
import { makeReplayWebhookMessagesHandler } from '../../http/routes/manage/webhook-messages-replay.route'
import { sqsQueueSender } from '../../runtime/queue-sender'

/**
 * Lambda's entry for ReplayWebhookMessages: the runtime, the SQS client and the Webhooks queue's URL (set by the
 * stack: functions/routes.ts `sends`) are read once, at cold start; a missing URL stops it at init.
 */
const runtime = runtimeFrom(process.env)
const queueUrl = process.env[WEBHOOKS_QUEUE.urlVariable]
if (queueUrl === undefined || queueUrl === '') {
  throw new Error(`Missing required environment variable ${WEBHOOKS_QUEUE.urlVariable}.`)
}
const sqs = new SQSClient({ region: runtime.config.awsRegion })

export const handler = makeReplayWebhookMessagesHandler({
  ...runtime,
  queues: { Webhooks: sqsQueueSender(sqs, queueUrl) },
})
