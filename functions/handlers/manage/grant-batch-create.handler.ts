import { SQSClient } from '@aws-sdk/client-sqs'
import { runtimeFrom } from '../../composition'
import { GRANT_BATCH_ROWS_QUEUE } from '../../consumers'
import { makeCreateGrantBatchHandler } from '../../http/routes/manage/grant-batch-create.route'
import { sqsQueueSender } from '../../runtime/queue-sender'

/**
 * Lambda's entry for CreateGrantBatch: the runtime, the SQS client and the GrantBatchRows queue's
 * URL (set by the stack: functions/routes.ts `sends`) are read once, at cold start; a missing URL
 * stops it at init rather than failing the first commit after its batch is stored.
 */
const runtime = runtimeFrom(process.env)
const queueUrl = process.env[GRANT_BATCH_ROWS_QUEUE.urlVariable]
if (queueUrl === undefined || queueUrl === '') {
  throw new Error(`Missing required environment variable ${GRANT_BATCH_ROWS_QUEUE.urlVariable}.`)
}
const sqs = new SQSClient({ region: runtime.config.awsRegion })

export const handler = makeCreateGrantBatchHandler({
  ...runtime,
  queues: { GrantBatchRows: sqsQueueSender(sqs, queueUrl) },
})
