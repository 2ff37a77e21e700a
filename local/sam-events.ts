import { createHash, randomUUID } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { APIGatewayProxyEventV2, SQSEvent } from 'aws-lambda'
import { GRANT_BATCH_ROWS_QUEUE } from '../functions/consumers'
import type { BatchRowsMessage } from '../functions/domain/batch'
import { idempotentGrantId } from '../functions/domain/ids'
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

/**
 * What the GrantBatchRows event source hands GrantBatchWorker: one record (the mapping's batch
 * size is 1) whose body is a BatchRowsMessage, in the shape `sam local generate-event sqs
 * receive-message --queue-name GrantBatchRows --body ...` writes (samcli's events/sqs/Sqs.json:
 * the same fields, `md5OfBody` the body's MD5 in hex). For
 * `sam local invoke GrantBatchWorkerFunction -e .local/events/grant-batch-rows.json`.
 */
export const batchRowsEvent = (
  message: BatchRowsMessage,
  options: { receiveCount?: number; sentAt?: Date; messageId?: string } = {},
): SQSEvent => {
  const body = JSON.stringify({ batchId: message.batchId, chunk: message.chunk })
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
        eventSourceARN: `arn:aws:sqs:${SAM_REGION}:${SAM_ACCOUNT_ID}:${GRANT_BATCH_ROWS_QUEUE.id}`,
        awsRegion: SAM_REGION,
      },
    ],
  }
}
