import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch'
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb'
import type { DynamoDBRecord, SQSEvent, SQSRecord } from 'aws-lambda'
import { OFFER_MAIL_QUEUE, type OfferMailMessage, WEBHOOKS_QUEUE } from '../../functions/consumers'
import { makeGrantLife } from '../../functions/core/grant-life'
import type { GrantRecord } from '../../functions/domain/grant'
import { REMINDER_BEFORE_MS } from '../../functions/domain/grant-lifecycle'
import { TIMER_SLOTS, timerSlot } from '../../functions/domain/offer-timers'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import { makeGrantStreamHandler } from '../../functions/wiring/grant-stream.consumer'
import { LocalQueue, localQueueSender } from '../../local/queue'
import { createStreamsClient, StreamPoller, streamArnOf } from '../../local/stream-poller'
import { grantBody, type Issuer, newIssuer, postGrant } from '../support/api'
import { useApi } from '../support/api-harness'
import { usePipeline } from '../support/pipeline'
import { config, documentClient, dynamodb, runtime, wallClock } from '../support/runtime'

/**
 * The grants table's stream through the local pipeline, on DynamoDB Local's own stream: a grant
 * made over HTTP, then changed by the grant's life (core/grant-life.ts), reaches the OfferMail
 * queue's consumer as SQS events with the messages of BRIEF19's rules, and its timers are in the
 * timers table. A consumer here records what it is handed; the real OfferMailer plugs in by id.
 */

const delivered: SQSRecord[] = []
/** Grants whose messages the consumer fails (answers in batchItemFailures). */
const failing = new Set<string>()
const recordingMailer = () => async (event: SQSEvent) => {
  delivered.push(...event.Records)
  return {
    batchItemFailures: event.Records.filter((r) =>
      failing.has((JSON.parse(r.body) as OfferMailMessage).grantId),
    ).map((r) => ({ itemIdentifier: r.messageId })),
  }
}
const pipeline = usePipeline({ consumers: { OfferMailer: recordingMailer } })
const api = useApi({ options: { pipeline } })
const life = makeGrantLife({
  store: new DynamoDbGrantLifeStore(documentClient, config.tables),
  clock: wallClock.now,
})

let issuer: Issuer
beforeAll(async () => {
  issuer = await newIssuer({ pool: 1000 })
})
afterEach(() => wallClock.reset())

const messagesOf = (grantId: string) =>
  delivered
    .map((r) => JSON.parse(r.body) as OfferMailMessage)
    .filter((m) => m.grantId === grantId)
    .map(({ kind, cause }) => ({ kind, cause }))

const makeGrant = async (email = 'stream@example.com') => {
  const call = await postGrant(
    api.baseUrl,
    issuer.programs.LIVE,
    issuer.keys.LIVE,
    grantBody({ recipient: { email } }),
  )
  expect(call.status).toBe(201)
  return call.body.id as string
}

const timersOf = async (grantId: string) => {
  const { Items } = await documentClient.send(
    new QueryCommand({
      TableName: config.tables.timers,
      KeyConditionExpression: 'slot = :slot',
      FilterExpression: 'grantId = :g',
      ExpressionAttributeValues: { ':slot': timerSlot(grantId), ':g': grantId },
    }),
  )
  return Items ?? []
}

test('a new grant: one offer/created message on OfferMail, as an SQS event, and its expiry and reminder timers', async () => {
  const grantId = await makeGrant()
  await pipeline.drain()
  expect(messagesOf(grantId)).toEqual([{ kind: 'offer', cause: 'created' }])
  const record = delivered.find((r) => r.body.includes(grantId))
  expect(record).toMatchObject({
    eventSource: 'aws:sqs',
    eventSourceARN: expect.stringMatching(new RegExp(`:${OFFER_MAIL_QUEUE.id}$`)),
    attributes: { ApproximateReceiveCount: '1' },
  })

  const { Item } = await documentClient.send(
    new GetCommand({ TableName: config.tables.grants, Key: { grantId } }),
  )
  const grant = Item as GrantRecord
  const expiresAt = Date.parse(grant.expiresAt ?? '')
  const timers = await timersOf(grantId)
  expect(timers.map((t) => [t.kind, t.due]).sort()).toEqual([
    ['expire', `${new Date(expiresAt).toISOString()}#${grantId}#expire`],
    ['remind', `${new Date(expiresAt - REMINDER_BEFORE_MS).toISOString()}#${grantId}#remind`],
  ])
  expect(timers[0]?.slot).toMatch(/^due#([0-9]|[12][0-9]|3[01])$/)
  expect(TIMER_SLOTS).toBe(32)
  expect(pipeline.status()).toMatchObject({ idle: true, streamPending: 0 })
})

test('a corrected address, a resend and a reminder each queue their mail; a cancel and a delivery event queue none', async () => {
  const grantId = await makeGrant('before@example.com')
  await pipeline.drain()
  const actor = { kind: 'operator' } as const

  await life.correctEmail({ grantId, issuerId: issuer.issuerId, email: 'after@example.com', actor })
  await pipeline.drain()
  expect(messagesOf(grantId)).toEqual([
    { kind: 'offer', cause: 'created' },
    { kind: 'offer', cause: 'corrected' },
  ])

  // The resend gap counts from the last request: move the clock past it.
  wallClock.advance(11 * 60_000)
  await life.resend({ grantId, issuerId: issuer.issuerId, actor })
  await life.recordDelivery({ grantId, event: 'sent' })
  await pipeline.drain()
  expect(messagesOf(grantId).slice(2)).toEqual([{ kind: 'offer', cause: 'resend' }])

  wallClock.advance(28 * 24 * 60 * 60_000)
  expect(await life.remind(grantId)).toBe('reminded')
  expect(await life.remind(grantId)).toBe('done_already')
  await pipeline.drain()
  expect(messagesOf(grantId).slice(3)).toEqual([{ kind: 'reminder', cause: 'reminder' }])

  await life.cancel({ grantId, issuerId: issuer.issuerId, actor })
  await pipeline.drain()
  expect(messagesOf(grantId)).toHaveLength(4)
})

test('items of the grants table that are not grants (link tokens, rate limits) queue nothing and write no timer', async () => {
  const before = delivered.length
  const keys = ['offer-token#stream-test', 'limit#stream-test']
  for (const grantId of keys) {
    await documentClient.send(
      new PutCommand({ TableName: config.tables.grants, Item: { grantId, tokenOf: 'gr_x' } }),
    )
  }
  await pipeline.drain()
  for (const grantId of keys) {
    await documentClient.send(
      new DeleteCommand({ TableName: config.tables.grants, Key: { grantId } }),
    )
  }
  await pipeline.drain()
  expect(delivered.slice(before).filter((r) => r.body.includes('stream-test'))).toEqual([])
  for (const grantId of keys) expect(await timersOf(grantId)).toEqual([])
})

test('a send that fails is retried from its record on: nothing after it is lost, nothing before it sent twice', async () => {
  // A poller of its own on the same stream, with a queue that refuses its first three sends.
  const streams = createStreamsClient(config.dynamodbEndpoint as string)
  const streamArn = (await streamArnOf(dynamodb, config.tables.grants)) as string
  const queue = new LocalQueue(OFFER_MAIL_QUEUE, runtime.clock)
  const sender = localQueueSender(queue)
  let refusals = 3
  const flaky = {
    sendBatch: async (entries: readonly { id: string; body: string }[]) => {
      if (refusals > 0) {
        refusals--
        return { failed: entries.map((e) => e.id) }
      }
      return sender.sendBatch(entries)
    },
  }
  const events: DynamoDBRecord[][] = []
  const webhooks = new LocalQueue(WEBHOOKS_QUEUE, runtime.clock)
  const handler = makeGrantStreamHandler(runtime, {
    offerMail: flaky,
    webhooks: localQueueSender(webhooks),
  })
  const poller = new StreamPoller({
    client: streams,
    streamArn,
    handler: async (event) => {
      events.push(event.Records)
      return handler(event)
    },
    batchSize: 100,
    retryAttempts: 10,
    startAt: 'LATEST',
  })
  try {
    await poller.start() // at LATEST now: what follows is new
    const ids = [await makeGrant('one@example.com'), await makeGrant('two@example.com')]
    for (let i = 0; i < 10; i++) await poller.pollOnce()
    const mine: string[] = []
    for (let batch = queue.receive(10); batch.length > 0; batch = queue.receive(10)) {
      for (const m of batch) {
        const { grantId } = JSON.parse(m.body) as OfferMailMessage
        if (ids.includes(grantId)) mine.push(grantId)
      }
    }
    expect(mine.sort()).toEqual([...ids].sort())
    // The first batch was handed over 4 times (3 refusals) before it went through.
    const withFirst = events.filter((batch) =>
      batch.some((r) => r.dynamodb?.Keys?.grantId?.S === ids[0]),
    )
    expect(withFirst.length).toBeGreaterThanOrEqual(4)
    expect(poller.givenUp).toEqual([])
  } finally {
    streams.destroy()
  }
})

test("the poller's events are DynamoDB stream events Powertools' batch processor reads, and it honours its partial response", async () => {
  const streams = createStreamsClient(config.dynamodbEndpoint as string)
  const streamArn = (await streamArnOf(dynamodb, config.tables.grants)) as string
  const processor = new BatchProcessor(EventType.DynamoDBStreams)
  const seen: string[] = []
  let failOnce: string | undefined
  const poller = new StreamPoller({
    client: streams,
    streamArn,
    handler: (event) =>
      processPartialResponse(
        event,
        async (record: DynamoDBRecord) => {
          const id = record.dynamodb?.Keys?.grantId?.S ?? ''
          if (!id.startsWith('pt-test#')) return
          seen.push(`${record.eventName}:${id}`)
          if (id === failOnce) {
            failOnce = undefined
            throw new Error('not now')
          }
        },
        processor,
        { throwOnFullBatchFailure: false },
      ),
    batchSize: 100,
    retryAttempts: 3,
    startAt: 'LATEST',
  })
  try {
    await poller.start()
    failOnce = 'pt-test#2'
    for (const n of [1, 2, 3]) {
      await documentClient.send(
        new PutCommand({ TableName: config.tables.grants, Item: { grantId: `pt-test#${n}` } }),
      )
    }
    for (let i = 0; i < 5; i++) await poller.pollOnce()
    // 1 once; 2 failed, then 2 and 3 again from there (Lambda's retry from the failed record).
    expect(seen).toEqual([
      'INSERT:pt-test#1',
      'INSERT:pt-test#2',
      'INSERT:pt-test#3',
      'INSERT:pt-test#2',
      'INSERT:pt-test#3',
    ])
  } finally {
    for (const n of [1, 2, 3]) {
      await documentClient.send(
        new DeleteCommand({ TableName: config.tables.grants, Key: { grantId: `pt-test#${n}` } }),
      )
    }
    streams.destroy()
  }
})

test('a message its consumer fails comes back after the visibility timeout (moved on the clock), and after 5 receives sits in the dead letters', async () => {
  const grantId = await makeGrant('retry@example.com')
  failing.add(grantId)
  await pipeline.drain()
  const receives = () =>
    delivered
      .filter((r) => r.body.includes(grantId))
      .map((r) => r.attributes.ApproximateReceiveCount)
  expect(receives()).toEqual(['1'])
  // Invisible until the timeout has passed: draining again delivers nothing new.
  await pipeline.drain()
  expect(receives()).toEqual(['1'])
  for (let n = 2; n <= OFFER_MAIL_QUEUE.maxReceiveCount + 1; n++) {
    wallClock.advance(OFFER_MAIL_QUEUE.visibilityTimeoutSeconds * 1000)
    await pipeline.drain()
  }
  expect(receives()).toEqual(['1', '2', '3', '4', '5'])
  const queue = pipeline.queues[OFFER_MAIL_QUEUE.id] as LocalQueue
  expect(queue.deadLetters.filter((m) => m.body.includes(grantId))).toHaveLength(1)
  expect(pipeline.status().queues[OFFER_MAIL_QUEUE.id]?.deadLetters).toBeGreaterThanOrEqual(1)
})

test("npm start's /_local/pipeline: the status and a drain over HTTP, for loopback callers only", async () => {
  const grantId = await makeGrant('http-drain@example.com')
  const drained = await fetch(`${api.baseUrl}/_local/pipeline/drain?timeoutMs=10000`, {
    method: 'POST',
  })
  expect(drained.status).toBe(200)
  expect(await drained.json()).toMatchObject({
    idle: true,
    streamPending: 0,
    consumers: expect.arrayContaining(['GrantStream', 'OfferMailer']),
    queues: { [OFFER_MAIL_QUEUE.id]: { visible: 0 } },
  })
  expect(messagesOf(grantId)).toEqual([{ kind: 'offer', cause: 'created' }])
  const status = await fetch(`${api.baseUrl}/_local/pipeline`)
  expect(status.status).toBe(200)
  expect(status.headers.get('cache-control')).toBe('no-store')
  const bad = await fetch(`${api.baseUrl}/_local/pipeline/drain?timeoutMs=0`, { method: 'POST' })
  expect(bad.status).toBe(400)
  // A page that rebound its own name to 127.0.0.1 sends its own Host: refused.
  const { request } = await import('node:http')
  const foreign = await new Promise<number>((resolve, reject) => {
    const req = request(
      `${api.baseUrl}/_local/pipeline`,
      { headers: { host: 'attacker.example' } },
      (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      },
    )
    req.on('error', reject)
    req.end()
  })
  expect(foreign).toBe(403)
})

test("a held queue's consumer takes nothing but what it lets through, and holds no drain; over npm start's /_local/pipeline/hold", async () => {
  const queue = OFFER_MAIL_QUEUE.id
  const hold = (body: unknown) =>
    fetch(`${api.baseUrl}/_local/pipeline/hold`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  try {
    expect(pipeline.hold(queue, true).held).toEqual({ [queue]: { let: 0 } })
    const before = delivered.length
    const grants = [await makeGrant('held-1@example.com'), await makeGrant('held-2@example.com')]
    // The stream is read and the messages wait on the held queue: the drain does not wait for them.
    const waiting = await pipeline.drain()
    expect(waiting).toMatchObject({ idle: true, held: { [queue]: { let: 0 } } })
    expect(waiting.queues[queue]?.visible).toBeGreaterThanOrEqual(2)
    expect(delivered.length).toBe(before)
    // Let exactly one through (the oldest: maybe another file's grant on the shared tables).
    const let1 = await hold({ queue, hold: true, let: 1 })
    expect(let1.status).toBe(200)
    expect(await let1.json()).toMatchObject({ held: { [queue]: { let: expect.any(Number) } } })
    expect(await pipeline.drain()).toMatchObject({ held: { [queue]: { let: 0 } } })
    expect(delivered.length).toBe(before + 1)
    // Bad holds: 400, nothing changed.
    for (const bad of [
      { queue, hold: 'yes' },
      { queue, hold: true, let: -1 },
      { queue, hold: false, let: 1 },
      { queue: 'NoSuchQueue', hold: true },
      { hold: true },
      { queue, hold: true, extra: 1 },
    ]) {
      expect([bad, (await hold(bad)).status]).toEqual([bad, 400])
    }
    expect(pipeline.status().held).toEqual({ [queue]: { let: 0 } })
    // Released: every message goes through.
    const released = await hold({ hold: false })
    expect(released.status).toBe(200)
    expect(await released.json()).toEqual(expect.objectContaining({ held: {} }))
    await pipeline.drain()
    for (const grantId of grants) {
      expect(messagesOf(grantId)).toEqual([{ kind: 'offer', cause: 'created' }])
    }
  } finally {
    pipeline.hold(undefined, false)
  }
})
