import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
} from '@aws-sdk/client-dynamodb'
import {
  CONSUMERS,
  type ConsumerSpec,
  OFFER_MAIL_QUEUE,
  QUEUES,
  STREAMS,
} from '../../functions/consumers'
import { TABLES, tableNames } from '../../functions/table-schema'
import { ensureTables } from '../../local/tables'
import { config, dynamodb } from '../support/runtime'

/**
 * functions/consumers.ts keeps AWS's rules for what it declares, so the stack built from it
 * deploys and behaves: a queue's visibility timeout at least six times its consumer's timeout (AWS
 * documents it for SQS event sources), a dead-letter queue on every queue, the event source limits,
 * IAM actions that are DynamoDB's, per table, never a Scan or a wildcard.
 */
const consumers: readonly ConsumerSpec[] = CONSUMERS

test('ids are unique, entries are handler modules, the stream reader is on disk', () => {
  const ids = [...consumers.map((c) => c.id), ...QUEUES.flatMap((q) => [q.id, q.deadLetter.id])]
  expect(new Set(ids).size).toBe(ids.length)
  for (const c of consumers) expect(c.entry).toMatch(/^functions\/handlers\/[a-z-]+\.handler\.ts$/)
  const stream = consumers.find((c) => c.trigger.kind === 'stream')
  expect(existsSync(resolve(__dirname, '../..', stream?.entry ?? ''))).toBe(true)
})

test('every queue: visibility timeout >= 6x its consumer timeout, a dead-letter queue, a few receives', () => {
  for (const queue of QUEUES) {
    const readers = consumers.filter(
      (c) => c.trigger.kind === 'queue' && c.trigger.queue === queue.id,
    )
    expect(readers.length).toBeGreaterThan(0)
    for (const reader of readers) {
      expect(queue.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(6 * reader.timeoutSeconds)
    }
    expect(queue.maxReceiveCount).toBeGreaterThanOrEqual(2)
    expect(queue.deadLetter.retentionSeconds).toBe(14 * 24 * 60 * 60)
    expect(queue.deadLetter.retentionSeconds).toBeGreaterThan(queue.retentionSeconds)
  }
})

test('event source settings within what Lambda accepts; OfferMailer at most 2 at once', () => {
  for (const c of consumers) {
    const t = c.trigger
    if (t.kind === 'queue') {
      // SQS: batch 1-10 without a window (up to 10,000 with one); maxConcurrency 2-1000.
      expect(t.batchSize).toBeGreaterThanOrEqual(1)
      expect(t.batchSize).toBeLessThanOrEqual(t.maxBatchingWindowSeconds > 0 ? 10_000 : 10)
      if (t.maxConcurrency !== undefined) {
        expect(t.maxConcurrency).toBeGreaterThanOrEqual(2)
        expect(t.maxConcurrency).toBeLessThanOrEqual(1000)
      }
      expect(t.reportBatchItemFailures).toBe(true)
    }
    if (t.kind === 'stream') {
      expect(t.batchSize).toBeLessThanOrEqual(10_000)
      // Lambda's ParallelizationFactor: 1 to 10 concurrent batches per shard.
      expect(t.parallelizationFactor).toBeGreaterThanOrEqual(1)
      expect(t.parallelizationFactor).toBeLessThanOrEqual(10)
      expect(t.reportBatchItemFailures).toBe(true)
      expect(t.onFailure).toBeTruthy()
    }
    expect(c.timeoutSeconds).toBeLessThanOrEqual(900)
  }
  expect(consumers.find((c) => c.id === 'OfferMailer')?.trigger).toMatchObject({
    kind: 'queue',
    queue: OFFER_MAIL_QUEUE.id,
    maxConcurrency: 2,
  })
})

test('IAM: DynamoDB actions on known tables only; no Scan, no wildcard', () => {
  for (const c of consumers) {
    for (const [table, actions] of Object.entries(c.access)) {
      expect(Object.keys(TABLES)).toContain(table)
      for (const action of actions ?? []) {
        expect(action).toMatch(/^dynamodb:[A-Z][A-Za-z]+$/)
        expect(action).not.toBe('dynamodb:Scan')
      }
    }
    for (const queue of c.sends ?? []) expect(QUEUES.map((q) => q.id)).toContain(queue)
  }
})

test("the grants table's stream is NEW_AND_OLD_IMAGES, and the local tables are created with it", async () => {
  expect(STREAMS).toEqual({ grants: 'NEW_AND_OLD_IMAGES' })
  const { Table } = await dynamodb.send(
    new DescribeTableCommand({ TableName: config.tables.grants }),
  )
  expect(Table?.StreamSpecification).toEqual({
    StreamEnabled: true,
    StreamViewType: 'NEW_AND_OLD_IMAGES',
  })
  expect(Table?.LatestStreamArn).toMatch(/stream/)
})

test('a grants table kept from before streams (.local/dynamodb) gets its stream from ensureTables', async () => {
  const names = tableNames(`vs-upgrade-${process.pid}`)
  await dynamodb.send(
    new CreateTableCommand({
      TableName: names.grants,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'grantId', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'grantId', KeyType: 'HASH' }],
    }),
  )
  try {
    const before = await dynamodb.send(new DescribeTableCommand({ TableName: names.grants }))
    expect(before.Table?.StreamSpecification?.StreamEnabled).not.toBe(true)
    await ensureTables(dynamodb, names)
    const after = await dynamodb.send(new DescribeTableCommand({ TableName: names.grants }))
    expect(after.Table?.StreamSpecification).toEqual({
      StreamEnabled: true,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    })
  } finally {
    await Promise.all(
      Object.values(names).map((TableName) =>
        dynamodb.send(new DeleteTableCommand({ TableName })).catch(() => {}),
      ),
    )
  }
})
