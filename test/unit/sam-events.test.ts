import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SQSEvent } from 'aws-lambda'
import { GRANT_BATCH_ROWS_QUEUE, WEBHOOKS_QUEUE } from '../../functions/consumers'
import { parseBatchRowsMessage } from '../../functions/core/grant-batch-worker'
import { parseWebhookQueueMessage } from '../../functions/core/webhook-queue-message.schema'
import { batchRowsEvent, webhookDeliveryEvent } from '../../local/sam-events'
import { PROJECT_ROOT } from '../support/project-root'

/**
 * The record `sam local generate-event sqs receive-message` writes (aws-sam-cli,
 * samcli/lib/generated_sample_events/events/sqs/Sqs.json), its placeholders filled as the CLI
 * fills them by default: the shape `sam local invoke GrantBatchWorkerFunction -e` is given. The
 * body and its MD5 are those of the Lambda developer guide's sample SQS event.
 */
const SAM_RECORD = {
  messageId: '19dd0b57-b21e-4ac1-bd88-01bbb068cb78',
  receiptHandle: 'MessageReceiptHandle',
  body: 'Test message.',
  attributes: {
    ApproximateReceiveCount: '1',
    SentTimestamp: '1523232000000',
    SenderId: '123456789012',
    ApproximateFirstReceiveTimestamp: '1523232000001',
  },
  messageAttributes: {},
  md5OfBody: 'e4e68fb7bd0e697a0ae8f1bb342846b3',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:MyQueue',
  awsRegion: 'us-east-1',
}

const keysOf = (value: unknown): unknown =>
  value && typeof value === 'object'
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, keysOf(v)]))
    : typeof value

describe('the SQS event for GrantBatchWorker (sam local)', () => {
  const event = batchRowsEvent(
    { batchId: 'bat_01hzy3k6m2q8r4s5t6v7w8x9yz', chunk: 3 },
    { sentAt: new Date(1_523_232_000_000), messageId: SAM_RECORD.messageId },
  )
  const [record] = event.Records

  it('has the fields and types of the record sam local generate-event writes, one record', () => {
    expect(event.Records).toHaveLength(1)
    expect(keysOf(record)).toEqual(keysOf(SAM_RECORD))
    expect(record).toMatchObject({
      ...SAM_RECORD,
      body: expect.any(String),
      md5OfBody: expect.any(String),
      eventSourceARN: `arn:aws:sqs:us-east-1:123456789012:${GRANT_BATCH_ROWS_QUEUE.id}`,
    })
    // SQS's MD5 of the body, in hex, as SAM's sample (whose md5OfBody is that of its body).
    expect(createHash('md5').update(SAM_RECORD.body).digest('hex')).toBe(SAM_RECORD.md5OfBody)
    expect(record?.md5OfBody).toBe(
      createHash('md5')
        .update(record?.body ?? '')
        .digest('hex'),
    )
  })

  it('carries a BatchRowsMessage the worker reads', () => {
    expect(parseBatchRowsMessage(record?.body ?? '')).toEqual({
      batchId: 'bat_01hzy3k6m2q8r4s5t6v7w8x9yz',
      chunk: 3,
    })
    expect(
      batchRowsEvent({ batchId: 'bat_01hzy3k6m2q8r4s5t6v7w8x9yz', chunk: 0 }, { receiveCount: 8 })
        .Records[0]?.attributes.ApproximateReceiveCount,
    ).toBe('8')
  })

  describe('the SQS event for WebhookSender', () => {
    const delivery = {
      issuerId: 'iss_sample',
      endpointId: 'we_abcdefghijklmnopqrstuvwxyz',
      messageId: 'msg_018f2d3c4b5aabcdefghijklmnopqrst',
      attempt: 1,
      trigger: 'replay' as const,
    }
    const [webhookRecord] = webhookDeliveryEvent(delivery, {
      sentAt: new Date(1_523_232_000_000),
      messageId: SAM_RECORD.messageId,
    }).Records

    it('has the same fields and types, from the Webhooks queue', () => {
      expect(keysOf(webhookRecord)).toEqual(keysOf(SAM_RECORD))
      expect(webhookRecord).toMatchObject({
        ...SAM_RECORD,
        body: expect.any(String),
        md5OfBody: createHash('md5')
          .update(webhookRecord?.body ?? '')
          .digest('hex'),
        eventSourceARN: `arn:aws:sqs:us-east-1:123456789012:${WEBHOOKS_QUEUE.id}`,
      })
    })

    it('carries a delivery the sender reads', () => {
      expect(parseWebhookQueueMessage(webhookRecord?.body ?? '')).toEqual({
        kind: 'delivery',
        ...delivery,
      })
    })
  })

  describe('npm run sam:events', () => {
    let dir: string
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'sam-events-'))
      writeFileSync(
        join(dir, 'seed.json'),
        JSON.stringify({
          baseUrl: 'http://localhost:3000',
          issuerId: 'iss_sample',
          programs: { TEST: 'prg_test', LIVE: 'prg_live' },
          keys: { TEST: 'vs_test_sample', LIVE: 'vs_live_sample' },
        }),
      )
    })
    afterAll(() => rmSync(dir, { recursive: true, force: true }))
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'bin/sam-events.ts', ...args], {
        cwd: PROJECT_ROOT,
        env: { ...process.env, VS_LOCAL_DIR: dir },
        encoding: 'utf8',
      })

    it('writes the SQS event of a batch’s chunk beside the API events', () => {
      const done = run('--batch', 'bat_01hzy3k6m2q8r4s5t6v7w8x9ya', '--chunk', '12')
      expect(done.stderr).toBe('')
      expect(done.status).toBe(0)
      const written = JSON.parse(
        readFileSync(join(dir, 'events', 'grant-batch-rows.json'), 'utf8'),
      ) as SQSEvent
      expect(parseBatchRowsMessage(written.Records[0]?.body ?? '')).toEqual({
        batchId: 'bat_01hzy3k6m2q8r4s5t6v7w8x9ya',
        chunk: 12,
      })
      expect(readdirSync(join(dir, 'events'))).toEqual(
        expect.arrayContaining(['grant.json', 'get-grant.json', 'grant-batch-rows.json']),
      )
    })

    it('writes the SQS event of a webhook message’s delivery, for the seeded issuer', () => {
      const endpointId = 'we_abcdefghijklmnopqrstuvwxyz'
      const messageId = 'msg_018f2d3c4b5aabcdefghijklmnopqrst'
      const done = run('--endpoint', endpointId, '--message', messageId)
      expect(done.stderr).toBe('')
      expect(done.status).toBe(0)
      const written = JSON.parse(
        readFileSync(join(dir, 'events', 'webhook-delivery.json'), 'utf8'),
      ) as SQSEvent
      expect(written.Records).toHaveLength(1)
      expect(written.Records[0]?.eventSourceARN).toMatch(new RegExp(`:${WEBHOOKS_QUEUE.id}$`))
      expect(parseWebhookQueueMessage(written.Records[0]?.body ?? '')).toEqual({
        kind: 'delivery',
        issuerId: 'iss_sample',
        endpointId,
        messageId,
        attempt: 1,
        trigger: 'replay',
      })
    })

    it.each([
      [['--chunk', '1'], /--chunk needs --batch/],
      [
        ['--batch', 'bat_01hzy3k6m2q8r4s5t6v7w8x9yb', '--chunk=-1'],
        /--chunk must be a chunk's index/,
      ],
      [['--batch', 'bat_01hzy3k6m2q8r4s5t6v7w8x9yb', '--chunk', '-1'], /argument is ambiguous/],
      [
        ['--batch', 'bat_01hzy3k6m2q8r4s5t6v7w8x9yb', '--chunk', '1.5'],
        /--chunk must be a chunk's index/,
      ],
      [['--batch', ''], /--batch must be a batch id/],
      [['--batch', 'bt_123'], /--batch must be a batch id/],
      [['--bach', 'bat_01hzy3k6m2q8r4s5t6v7w8x9yb'], /Unknown option '--bach'/],
      [['--endpoint', 'we_abcdefghijklmnopqrstuvwxyz'], /--endpoint and --message go together/],
      [['--message', 'msg_018f2d3c4b5aabcdefghijklmnopqrst'], /go together/],
      [
        ['--endpoint', 'we_123', '--message', 'msg_018f2d3c4b5aabcdefghijklmnopqrst'],
        /--endpoint must be a webhook endpoint id/,
      ],
      [
        ['--endpoint', 'we_abcdefghijklmnopqrstuvwxyz', '--message', 'msg_1'],
        /--message must be a webhook message id/,
      ],
    ])('refuses %j in one line, exit 1', (args, message) => {
      const done = run(...args)
      expect(done.status).toBe(1)
      expect(done.stderr).toMatch(message)
      expect(done.stderr.trim().split('\n')).toHaveLength(1)
    })
  })
})
