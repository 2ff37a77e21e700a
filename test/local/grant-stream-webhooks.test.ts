import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb'
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { marshall } from '@aws-sdk/util-dynamodb'
import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda'
import { OFFER_MAIL_QUEUE, type OfferMailMessage, WEBHOOKS_QUEUE } from '../../functions/consumers'
import { makeGrantLife } from '../../functions/core/grant-life'
import { readGrantRecord } from '../../functions/core/grant-stream'
import { webhookEventsOf } from '../../functions/core/webhook-events'
import { type BatchRecord, batchKey, chunkKey } from '../../functions/domain/batch'
import type { GrantRecord } from '../../functions/domain/grant'
import type {
  GrantEventData,
  WebhookEvent,
  WebhookQueueMessage,
} from '../../functions/domain/webhooks'
import type { QueueEntry, QueueSender } from '../../functions/runtime/queue-sender'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import { tableChangeOf } from '../../functions/stores/stream-records.dynamodb'
import { makeGrantStreamHandler } from '../../functions/wiring/grant-stream.consumer'
import { LocalQueue, localQueueSender } from '../../local/queue'
import { createStreamsClient, StreamPoller, streamArnOf } from '../../local/stream-poller'
import { grantBody, type Issuer, newIssuer, postGrant } from '../support/api'
import { useApi } from '../support/api-harness'
import { config, documentClient, dynamodb, runtime } from '../support/runtime'

/**
 * GrantStream hands each webhook event of a stream record (core/webhook-events.ts) to the Webhooks
 * queue as a `{kind: 'event', event}` message (wiring/grant-stream.consumer.ts): through DynamoDB
 * Local's own stream and the local queue, then record by record where a refused send must fail
 * exactly the record it came from.
 */

const api = useApi()
const life = makeGrantLife({
  store: new DynamoDbGrantLifeStore(documentClient, config.tables),
  clock: runtime.clock.now,
})
let issuer: Issuer
beforeAll(async () => {
  issuer = await newIssuer({ pool: 1000 })
})

const makeGrant = async (email: string) => {
  const call = await postGrant(
    api.baseUrl,
    issuer.programs.LIVE,
    issuer.keys.LIVE,
    grantBody({ recipient: { email, name: 'Webhook Recipient' } }),
  )
  expect(call.status).toBe(201)
  return call.body.id as string
}

/** Everything on a local queue now, bodies parsed. */
const drainQueue = <T>(queue: LocalQueue): T[] => {
  const bodies: T[] = []
  for (let batch = queue.receive(10); batch.length > 0; batch = queue.receive(10)) {
    for (const m of batch) {
      bodies.push(JSON.parse(m.body) as T)
      queue.delete(m.receiptHandle)
    }
  }
  return bodies
}

/** A GrantStream reader of its own on DynamoDB Local's stream, from now on, over local queues. */
const readerOnTheStream = async () => {
  const streams = createStreamsClient(config.dynamodbEndpoint as string)
  const streamArn = (await streamArnOf(dynamodb, config.tables.grants)) as string
  const offerMail = new LocalQueue(OFFER_MAIL_QUEUE, runtime.clock)
  const webhooks = new LocalQueue(WEBHOOKS_QUEUE, runtime.clock)
  const records: DynamoDBRecord[] = []
  const handler = makeGrantStreamHandler(runtime, {
    offerMail: localQueueSender(offerMail),
    webhooks: localQueueSender(webhooks),
  })
  const poller = new StreamPoller({
    client: streams,
    streamArn,
    handler: async (event) => {
      records.push(...event.Records)
      return handler(event)
    },
    batchSize: 100,
    retryAttempts: 10,
    startAt: 'LATEST',
  })
  await poller.start()
  return { poller, offerMail, webhooks, records, stop: () => streams.destroy() }
}

test('a grant made and canceled: grant.created and grant.canceled on Webhooks, one message each, the events its records make; its offer mail still goes', async () => {
  const reader = await readerOnTheStream()
  try {
    const grantId = await makeGrant('webhook-life@example.com')
    await life.cancel({ grantId, issuerId: issuer.issuerId, actor: { kind: 'operator' } })
    for (let i = 0; i < 10; i++) await reader.poller.pollOnce()

    const mine = drainQueue<WebhookQueueMessage>(reader.webhooks).filter(
      (m) => m.kind === 'event' && (m.event.data as GrantEventData).grantId === grantId,
    )
    const expected = reader.records
      .filter((r) => r.dynamodb?.Keys?.grantId?.S === grantId)
      .flatMap((r) => webhookEventsOf(tableChangeOf(r)))
    expect(expected.map((e) => e.type)).toEqual(['grant.created', 'grant.canceled'])
    expect(mine).toEqual(expected.map((event) => ({ kind: 'event', event })))
    const [created, canceled] = mine.map((m) => (m as { event: WebhookEvent }).event)
    expect(created).toMatchObject({
      issuerId: issuer.issuerId,
      mode: 'LIVE',
      data: {
        grantId,
        programId: issuer.programs.LIVE,
        state: 'reserved',
        amount: 1,
        recipient: { email: 'webhook-life@example.com' },
      },
    })
    expect(canceled).toMatchObject({ data: { grantId, state: 'canceled' } })
    expect(JSON.stringify(mine)).not.toContain('Webhook Recipient')

    const mail = drainQueue<OfferMailMessage>(reader.offerMail).filter((m) => m.grantId === grantId)
    expect(mail.map((m) => `${m.kind}/${m.cause}`)).toEqual(['offer/created'])
  } finally {
    reader.stop()
  }
})

test('a batch item that becomes done makes batch.completed; its chunks and a running batch’s updates make nothing (no filter runs locally: the reader decides)', async () => {
  const reader = await readerOnTheStream()
  const batchId = `bat_${'w'.repeat(26)}`
  const at = new Date(runtime.clock.now()).toISOString()
  const batch: BatchRecord = {
    grantId: batchKey(batchId),
    itemType: 'grantBatch',
    batchId,
    issuerId: issuer.issuerId,
    program: issuer.programs.TEST,
    mode: 'TEST',
    idempotencyKey: 'webhook-batch',
    requestHash: 'e'.repeat(64),
    chunkPrefix: 'eeeeeeee',
    chunks: 1,
    createdBy: { sub: 'sub-webhooks', email: 'committer@example.com' },
    submittedAt: at,
    total: 3,
    refused: 1,
    amount: 2,
    granted: 0,
    failed: 1,
    canceled: 0,
    chunksDone: 0,
    status: 'queued',
    updatedAt: at,
  }
  const chunk = chunkKey(batchId, 'eeeeeeee', 0)
  const put = (Item: Record<string, unknown>) =>
    documentClient.send(new PutCommand({ TableName: config.tables.grants, Item }))
  const update = (key: string, UpdateExpression: string, values: Record<string, unknown>) =>
    documentClient.send(
      new UpdateCommand({
        TableName: config.tables.grants,
        Key: { grantId: key },
        UpdateExpression,
        ...(UpdateExpression.includes('#status')
          ? { ExpressionAttributeNames: { '#status': 'status' } }
          : {}),
        ExpressionAttributeValues: values,
      }),
    )
  try {
    await put(batch)
    await put({
      grantId: chunk,
      itemType: 'grantBatchChunk',
      batchId,
      index: 0,
      rows: [],
      results: [],
    })
    await update(chunk, 'SET results = :r, #status = :s', {
      ':r': [{ status: 'granted' }],
      ':s': 'done',
    })
    await update(batch.grantId, 'SET granted = :g, chunksDone = :c, #status = :s', {
      ':g': 2,
      ':c': 1,
      ':s': 'running',
    })
    const finishedAt = new Date(runtime.clock.now() + 1000).toISOString()
    await update(batch.grantId, 'SET #status = :s, finishedAt = :f, updatedAt = :f', {
      ':s': 'done',
      ':f': finishedAt,
    })
    // A later change of the finished batch (its notice sent): no second event.
    await update(batch.grantId, 'SET notifiedAt = :f', { ':f': finishedAt })
    for (let i = 0; i < 10; i++) await reader.poller.pollOnce()

    const mine = drainQueue<WebhookQueueMessage>(reader.webhooks).filter(
      (m) => m.kind === 'event' && JSON.stringify(m.event.data).includes(batchId),
    )
    expect(mine).toEqual([
      {
        kind: 'event',
        event: expect.objectContaining({
          type: 'batch.completed',
          issuerId: issuer.issuerId,
          mode: 'TEST',
          occurredAt: finishedAt,
          data: {
            batchId,
            programId: issuer.programs.TEST,
            mode: 'TEST',
            status: 'done',
            counts: { total: 3, granted: 2, failed: 1, canceled: 0 },
          },
        }),
      },
    ])
  } finally {
    for (const grantId of [chunk, batch.grantId]) {
      await documentClient.send(
        new DeleteCommand({ TableName: config.tables.grants, Key: { grantId } }),
      )
    }
    reader.stop()
  }
})

// Records as Lambda delivers them, for the handler called directly.
const image = (item: object) =>
  marshall(item, { removeUndefinedValues: true }) as Record<string, SdkAttributeValue> as Record<
    string,
    AttributeValue
  >
const grantOf = (n: number): GrantRecord => ({
  grantId: `gr_${String(n).padStart(26, '0')}`,
  programId: 'pr_webhooks',
  issuerId: 'is_webhooks',
  mode: 'TEST',
  recipient: { email: `r${n}@example.com` },
  reason: 'Thanks',
  amount: n,
  status: 'offered',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-31T00:00:00.000Z',
  requestHash: 'f'.repeat(64),
  history: [
    { at: '2026-01-02T00:00:00.000Z', event: 'transition', state: 'offered', actor: 'simulation' },
  ],
})
/** The record of grant n's cancel: one event (grant.canceled), no offer mail, no timer. */
const canceledRecord = (n: number): DynamoDBRecord => {
  const before = grantOf(n)
  const after: GrantRecord = {
    ...before,
    status: 'canceled',
    history: [
      ...(before.history ?? []),
      { at: '2026-01-03T00:00:00.000Z', event: 'transition', state: 'canceled', actor: 'operator' },
    ],
  }
  return {
    eventName: 'MODIFY',
    dynamodb: {
      Keys: { grantId: { S: before.grantId } },
      SequenceNumber: String(1000 + n).padStart(21, '0'),
      NewImage: image(after),
      OldImage: image(before),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  }
}

/** A sender that records each SendMessageBatch call and refuses the entries `refuse` picks. */
const recordingSender = (refuse: (message: WebhookQueueMessage) => boolean = () => false) => {
  const calls: QueueEntry[][] = []
  const sender: QueueSender = {
    async sendBatch(entries) {
      calls.push([...entries])
      return {
        failed: entries
          .filter((e) => refuse(JSON.parse(e.body) as WebhookQueueMessage))
          .map((e) => e.id),
      }
    },
  }
  return { calls, sender }
}
const grantIdOf = (message: WebhookQueueMessage) =>
  message.kind === 'event' ? (message.event.data as GrantEventData).grantId : ''

test('eleven events go as one SendMessageBatch of 10 and one of 1, one event message each; a refused event fails its own record, and the retry from it makes the same ids', async () => {
  const records = Array.from({ length: 11 }, (_, i) => canceledRecord(i + 1))
  const fourth = grantOf(4).grantId
  const webhooks = recordingSender((m) => grantIdOf(m) === fourth)
  const offerMail = recordingSender()
  const handler = makeGrantStreamHandler(runtime, {
    offerMail: offerMail.sender,
    webhooks: webhooks.sender,
  })
  const answer = await handler({ Records: records } satisfies DynamoDBStreamEvent)
  expect(answer).toEqual({
    batchItemFailures: [{ itemIdentifier: records[3]?.dynamodb?.SequenceNumber }],
  })
  expect(webhooks.calls.map((c) => c.length)).toEqual([10, 1])
  const sent = webhooks.calls.flat().map((e) => JSON.parse(e.body) as WebhookQueueMessage)
  expect(sent).toEqual(
    records.map((r) => ({ kind: 'event', event: webhookEventsOf(tableChangeOf(r))[0] })),
  )
  expect(sent.map((m) => (m.kind === 'event' ? m.event.type : ''))).toEqual(
    Array(11).fill('grant.canceled'),
  )
  // Entry ids are unique within a call and tie back to the record.
  for (const call of webhooks.calls) {
    expect(new Set(call.map((e) => e.id)).size).toBe(call.length)
  }
  // A cancel sends no offer mail: the OfferMail queue was not called.
  expect(offerMail.calls).toEqual([])

  // Lambda retries from the failed record: the same events, the same ids, now taken.
  const retry = recordingSender()
  const again = makeGrantStreamHandler(runtime, {
    offerMail: offerMail.sender,
    webhooks: retry.sender,
  })
  expect(await again({ Records: records.slice(3) })).toEqual({ batchItemFailures: [] })
  const resent = retry.calls.flat().map((e) => JSON.parse(e.body) as { event: WebhookEvent })
  expect(resent.map((m) => m.event.eventId)).toEqual(
    sent.slice(3).map((m) => (m.kind === 'event' ? m.event.eventId : '')),
  )
})

test('the first failed record in stream order is named, whichever queue refused: an event refused before an offer mail refused later', async () => {
  // Record 1: a new grant (offer mail and grant.created); record 2: a cancel (grant.canceled).
  const created = grantOf(21)
  const insert: DynamoDBRecord = {
    eventName: 'INSERT',
    dynamodb: {
      Keys: { grantId: { S: created.grantId } },
      SequenceNumber: '000000000000000002001',
      NewImage: image({
        ...created,
        status: 'reserved',
        history: undefined,
        createdAt: '2099-01-01T00:00:00.000Z',
        expiresAt: '2099-01-31T00:00:00.000Z',
      }),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  }
  const cancel = canceledRecord(22)
  // Webhooks refuses record 2's event; OfferMail refuses record 1's mail: record 1 is named.
  const webhooks = recordingSender((m) => grantIdOf(m) === grantOf(22).grantId)
  const offerMail: QueueSender = {
    sendBatch: async (entries) => ({ failed: entries.map((e) => e.id) }),
  }
  // The insert's timers are written to DynamoDB Local: removed after.
  const handler = makeGrantStreamHandler(runtime, { offerMail, webhooks: webhooks.sender })
  try {
    expect(await handler({ Records: [insert, cancel] })).toEqual({
      batchItemFailures: [{ itemIdentifier: '000000000000000002001' }],
    })
    // Only the cancel's event refused: the webhooks queue alone names record 2.
    const onlyWebhooks = makeGrantStreamHandler(runtime, {
      offerMail: recordingSender().sender,
      webhooks: webhooks.sender,
    })
    expect(await onlyWebhooks({ Records: [insert, cancel] })).toEqual({
      batchItemFailures: [{ itemIdentifier: cancel.dynamodb?.SequenceNumber }],
    })
  } finally {
    // The insert's timers, as the reader made them (due in 2099: no sweep meanwhile takes them).
    for (const timer of readGrantRecord(tableChangeOf(insert))?.timers ?? []) {
      await documentClient.send(
        new DeleteCommand({
          TableName: config.tables.timers,
          Key: { slot: timer.slot, due: timer.due },
        }),
      )
    }
  }
})
