import { createHash, randomUUID } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { APIGatewayProxyEventV2, SQSEvent } from 'aws-lambda'
import { GRANT_BATCH_ROWS_QUEUE, WEBHOOKS_QUEUE } from '../functions/consumers'
import type { BatchRowsMessage } from '../functions/domain/batch'
import { idempotentGrantId } from '../functions/domain/ids'
import type { WebhookQueueMessage } from '../functions/domain/webhooks'
import type { Seed } from './seed'

/**
 * The sample events in events/ are real API Gateway payload-2.0 events with placeholders where
 * a seeded id or key goes ({{TEST_API_KEY}}...): committed files never hold a working key.
 */
/** The Idempotency-Key of events/grant.json, so get-grant.json can name the grant it made. */
export const SAMPLE_IDEMPOTENCY_KEY = 'sam-local-sample-grant-1'

export const eventValues = (seed: Pick<Seed, 'issuerId' | 'programs' | 'keys'>) => ({
  TEST_PROGRAM_ID: seed.programs.TEST,
  TEST_API_KEY: seed.keys.TEST,
  IDEMPOTENCY_KEY: SAMPLE_IDEMPOTENCY_KEY,
  GRANT_ID: idempotentGrantId(seed.issuerId, 'TEST', SAMPLE_IDEMPOTENCY_KEY),
})

export const renderEvent = (template: string, values: Record<string, string>): string =>
  template.replace(/\{\{(\w+)\}\}/g, (match, name: string) => {
    const value = values[name]
    if (value === undefined) throw new Error(`No value for placeholder ${match}`)
    return value
  })

/** Every sample event except env.json, rendered with the given values. */
export const sampleEvents = (dir: string, values: Record<string, string>) =>
  readdirSync(dir)
    .filter((file) => file.endsWith('.json') && file !== 'env.json')
    .sort()
    .map((file) => ({
      file,
      event: JSON.parse(
        renderEvent(readFileSync(join(dir, file), 'utf8'), values),
      ) as APIGatewayProxyEventV2,
    }))

/** The account and region `sam local generate-event` writes when given none. */
const SAM_ACCOUNT_ID = '123456789012'
const SAM_REGION = 'us-east-1'

/** What `sam local generate-event sqs receive-message` writes around one body. */
type SqsRecordOptions = { receiveCount?: number; sentAt?: Date; messageId?: string }

/**
 * One SQS record from queue `queueId` carrying `body`, in the shape `sam local generate-event sqs
 * receive-message --queue-name <queue> --body ...` writes (samcli's events/sqs/Sqs.json: the same
 * fields, `md5OfBody` the body's MD5 in hex).
 */
const sqsEvent = (queueId: string, body: string, options: SqsRecordOptions = {}): SQSEvent => {
  const sent = (options.sentAt ?? new Date()).getTime()
  return {
    Records: [
      {
        messageId: options.messageId ?? randomUUID(),
        receiptHandle: 'MessageReceiptHandle',
        body,
        attributes: {
          ApproximateReceiveCount: String(options.receiveCount ?? 1),
          SentTimestamp: String(sent),
          SenderId: SAM_ACCOUNT_ID,
          ApproximateFirstReceiveTimestamp: String(sent + 1),
        },
        messageAttributes: {},
        md5OfBody: createHash('md5').update(body).digest('hex'),
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:${SAM_REGION}:${SAM_ACCOUNT_ID}:${queueId}`,
        awsRegion: SAM_REGION,
      },
    ],
  }
}

/**
 * What the GrantBatchRows event source hands GrantBatchWorker: one record whose body is a
 * BatchRowsMessage. For
 * `sam local invoke GrantBatchWorkerFunction -e .local/events/grant-batch-rows.json`.
 */
export const batchRowsEvent = (
  message: BatchRowsMessage,
  options: SqsRecordOptions = {},
): SQSEvent =>
  sqsEvent(
    GRANT_BATCH_ROWS_QUEUE.id,
    JSON.stringify({ batchId: message.batchId, chunk: message.chunk }),
    options,
  )

/**
 * What the Webhooks event source hands WebhookSender for one delivery (functions/domain/webhooks.ts
 * WebhookQueueMessage, kind `delivery`) of a message already written (a test event sent from the
 * console under npm start, or one a grant's change fanned out). For
 * `sam local invoke WebhookSenderFunction -e .local/events/webhook-delivery.json`.
 */
export const webhookDeliveryEvent = (
  delivery: Omit<Extract<WebhookQueueMessage, { kind: 'delivery' }>, 'kind'>,
  options: SqsRecordOptions = {},
): SQSEvent =>
  sqsEvent(
    WEBHOOKS_QUEUE.id,
    JSON.stringify({
      kind: 'delivery',
      issuerId: delivery.issuerId,
      endpointId: delivery.endpointId,
      messageId: delivery.messageId,
      attempt: delivery.attempt,
      trigger: delivery.trigger,
      ...(delivery.notBefore === undefined ? {} : { notBefore: delivery.notBefore }),
    }),
    options,
  )
