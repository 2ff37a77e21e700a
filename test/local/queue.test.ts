import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch'
import type { SQSEvent, SQSRecord } from 'aws-lambda'
import { OFFER_MAIL_QUEUE } from '../../functions/consumers'
import { LocalQueue, localQueueSender, pollOnce } from '../../local/queue'

/**
 * The local queue (local/queue.ts) answers as SQS does where the consumers depend on it, on an
 * injected clock: visibility timeout, redelivery, maxReceiveCount -> dead letters, and Lambda's
 * partial batch responses. The consumer in the partial-batch cases is AWS Powertools' batch
 * processor (code we did not write), so the events are ones it accepts and its answers are honoured.
 */

const clock = () => {
  let now = Date.parse('2026-11-26T12:00:00.000Z')
  return { now: () => now, advance: (ms: number) => (now += ms) }
}

const spec = { id: 'Q', visibilityTimeoutSeconds: 30, maxReceiveCount: 3 }

test('a received message is invisible for the visibility timeout, then delivered again with its receive count', () => {
  const time = clock()
  const queue = new LocalQueue(spec, time)
  const id = queue.send('hello')
  const [first] = queue.receive(10)
  expect(first).toMatchObject({ messageId: id, body: 'hello', receiveCount: 1 })
  expect(queue.counts()).toEqual({ visible: 0, inFlight: 1, delayed: 0, deadLetters: 0 })
  time.advance(29_999)
  expect(queue.receive(10)).toEqual([])
  time.advance(1)
  const [second] = queue.receive(10)
  expect(second).toMatchObject({ messageId: id, receiveCount: 2 })
  expect(second?.receiptHandle).not.toBe(first?.receiptHandle)
  // The first receive's handle no longer deletes it (as SQS: only the latest handle is sure to).
  expect(queue.delete(first?.receiptHandle ?? '')).toBe(false)
  expect(queue.delete(second?.receiptHandle ?? '')).toBe(true)
  time.advance(60_000)
  expect(queue.receive(10)).toEqual([])
  expect(queue.counts()).toEqual({ visible: 0, inFlight: 0, delayed: 0, deadLetters: 0 })
})

test('ChangeMessageVisibility 0 makes a message visible at once; receive takes at most `max`, oldest first', () => {
  const time = clock()
  const queue = new LocalQueue(spec, time)
  const ids = Array.from({ length: 12 }, (_, i) => queue.send(`m${i}`))
  const batch = queue.receive(10)
  expect(batch.map((m) => m.messageId)).toEqual(ids.slice(0, 10))
  expect(queue.receive(10).map((m) => m.messageId)).toEqual(ids.slice(10))
  expect(queue.changeVisibility(batch[3]?.receiptHandle ?? '', 0)).toBe(true)
  expect(queue.receive(10).map((m) => m.body)).toEqual(['m3'])
  expect(() => queue.receive(11)).toThrow('1 to 10')
})

test('after maxReceiveCount receives without a delete, the message goes to the dead letters, never delivered again', () => {
  const time = clock()
  const queue = new LocalQueue(spec, time)
  const id = queue.send('poison')
  for (let receive = 1; receive <= spec.maxReceiveCount; receive++) {
    expect(queue.receive(1)).toMatchObject([{ messageId: id, receiveCount: receive }])
    time.advance(spec.visibilityTimeoutSeconds * 1000)
  }
  expect(queue.receive(10)).toEqual([])
  expect(queue.deadLetters).toMatchObject([{ messageId: id, body: 'poison', receiveCount: 3 }])
  expect(queue.counts()).toEqual({ visible: 0, inFlight: 0, delayed: 0, deadLetters: 1 })
})

test('SendMessageBatch answers per entry and refuses what SQS refuses', () => {
  const queue = new LocalQueue(spec, clock())
  const result = queue.sendBatch([
    { id: 'a', body: 'x' },
    { id: 'b', body: 'y'.repeat(256 * 1024 + 1) },
  ])
  expect(result.successful.map((s) => s.id)).toEqual(['a'])
  expect(result.failed).toMatchObject([{ id: 'b', message: expect.stringContaining('262,144') }])
  expect(() => queue.sendBatch([])).toThrow('1 to 10')
  expect(() =>
    queue.sendBatch([
      { id: 'a', body: '1' },
      { id: 'a', body: '2' },
    ]),
  ).toThrow('distinct')
})

/** A consumer written with Powertools' batch processor: fails the records whose body says so. */
const powertoolsConsumer = (seen: SQSRecord[]) => {
  const processor = new BatchProcessor(EventType.SQS)
  return (event: SQSEvent) =>
    processPartialResponse(
      event,
      async (record: SQSRecord) => {
        seen.push(record)
        if (record.body.startsWith('fail')) throw new Error(`failed ${record.body}`)
      },
      processor,
    )
}

test('partial batch response: only the messages in batchItemFailures come back, after the visibility timeout', async () => {
  const time = clock()
  const queue = new LocalQueue(OFFER_MAIL_QUEUE, time)
  const bodies = ['ok-1', 'fail-1', 'ok-2', 'fail-2', 'ok-3']
  for (const body of bodies) queue.send(body)
  const seen: SQSRecord[] = []
  const consumer = powertoolsConsumer(seen)

  const first = await pollOnce(queue, consumer, 10)
  expect(first).toEqual({ received: 5, deleted: 3, failed: 2 })
  expect(seen.map((r) => r.body)).toEqual(bodies)
  // Real SQS event records.
  expect(seen[0]).toMatchObject({
    eventSource: 'aws:sqs',
    eventSourceARN: expect.stringMatching(/^arn:aws:sqs:[^:]+:\d{12}:OfferMail$/),
    attributes: { ApproximateReceiveCount: '1' },
    md5OfBody: 'af0eade532c47784ad382d7506b94038',
  })
  expect(await pollOnce(queue, consumer, 10)).toEqual({ received: 0, deleted: 0, failed: 0 })
  time.advance(OFFER_MAIL_QUEUE.visibilityTimeoutSeconds * 1000)
  seen.length = 0
  // Powertools throws when every record failed: Lambda then retries the whole batch.
  expect(await pollOnce(queue, consumer, 10)).toMatchObject({ received: 2, deleted: 0, failed: 2 })
  expect(seen.map((r) => [r.body, r.attributes.ApproximateReceiveCount])).toEqual([
    ['fail-1', '2'],
    ['fail-2', '2'],
  ])
})

test('a handler that throws, or names a message not in its batch, fails the whole batch: nothing is deleted', async () => {
  const time = clock()
  const queue = new LocalQueue(spec, time)
  queue.send('a')
  queue.send('b')
  const thrown = await pollOnce(
    queue,
    async () => {
      throw new Error('down')
    },
    10,
  )
  expect(thrown).toMatchObject({ received: 2, deleted: 0, failed: 2 })
  time.advance(30_000)
  const stray = await pollOnce(
    queue,
    async () => ({ batchItemFailures: [{ itemIdentifier: 'not-in-this-batch' }] }),
    10,
  )
  expect(stray).toMatchObject({ received: 2, deleted: 0, failed: 2 })
  time.advance(30_000)
  // A handler answering nothing (void) succeeded for all.
  expect(await pollOnce(queue, async () => undefined, 10)).toEqual({
    received: 2,
    deleted: 2,
    failed: 0,
  })
  expect(queue.counts()).toEqual({ visible: 0, inFlight: 0, delayed: 0, deadLetters: 0 })
})

test('a delayed message is received no earlier than its send time plus its delay, with a receive count from 0; others pass it', () => {
  const time = clock()
  const queue = new LocalQueue(spec, time)
  const later = queue.send('later', 900)
  const now = queue.send('now')
  expect(queue.counts()).toEqual({ visible: 1, inFlight: 0, delayed: 1, deadLetters: 0 })
  expect(queue.nextVisibleAt()).toBe(time.now() + 900_000)
  const [first] = queue.receive(10)
  expect(first).toMatchObject({ messageId: now, receiveCount: 1 })
  queue.delete(first?.receiptHandle ?? '')
  // However often it is polled, never a moment early.
  for (const step of [60_000, 600_000, 239_999]) {
    time.advance(step)
    expect(queue.receive(10)).toEqual([])
  }
  expect(queue.counts()).toEqual({ visible: 0, inFlight: 0, delayed: 1, deadLetters: 0 })
  time.advance(1)
  const [delayed] = queue.receive(10)
  expect(delayed).toMatchObject({
    messageId: later,
    body: 'later',
    receiveCount: 1,
    sentAt: time.now() - 900_000,
    firstReceivedAt: time.now(),
  })
  // Received: in flight now, for its visibility timeout, as any message.
  expect(queue.counts()).toEqual({ visible: 0, inFlight: 1, delayed: 0, deadLetters: 0 })
})

test('a batch sends each entry with its own delay; a delay SQS refuses fails only that entry', async () => {
  const time = clock()
  const queue = new LocalQueue(spec, time)
  const sender = localQueueSender(queue)
  const answer = await sender.sendBatch([
    { id: 'a', body: 'a', delaySeconds: 5 },
    { id: 'b', body: 'b' },
    { id: 'c', body: 'c', delaySeconds: 300 },
    { id: 'd', body: 'd', delaySeconds: 901 },
    { id: 'e', body: 'e', delaySeconds: -1 },
    { id: 'f', body: 'f', delaySeconds: 1.5 },
    { id: 'g', body: 'g', delaySeconds: 0 },
  ])
  expect(answer).toEqual({ failed: ['d', 'e', 'f'] })
  const bodiesAt = (ms: number) => {
    time.advance(ms)
    const received = queue.receive(10)
    for (const m of received) queue.delete(m.receiptHandle)
    return received.map((m) => m.body)
  }
  expect(bodiesAt(0)).toEqual(['b', 'g'])
  expect(bodiesAt(4_999)).toEqual([])
  expect(bodiesAt(1)).toEqual(['a'])
  expect(bodiesAt(294_999)).toEqual([])
  expect(bodiesAt(1)).toEqual(['c'])
})

test('a delayed message a consumer fails comes back after the visibility timeout and reaches the dead letters after maxReceiveCount receives, counted from its first', () => {
  const time = clock()
  const queue = new LocalQueue(spec, time)
  const id = queue.send('delayed poison', 60)
  time.advance(60_000)
  for (let receive = 1; receive <= spec.maxReceiveCount; receive++) {
    expect(queue.receive(1)).toMatchObject([{ messageId: id, receiveCount: receive }])
    time.advance(spec.visibilityTimeoutSeconds * 1000)
  }
  expect(queue.receive(10)).toEqual([])
  expect(queue.deadLetters).toMatchObject([{ messageId: id, receiveCount: spec.maxReceiveCount }])
})
