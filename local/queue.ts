import { createHash, randomUUID } from 'node:crypto'
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda'
import type { QueueSpec } from '../functions/consumers'
import type { Clock } from '../functions/runtime/clock'

/**
 * An SQS standard queue in this process, for `npm start` and the tests (AWS runs the real one,
 * functions/consumers.ts). What the consumers depend on behaves as SQS does:
 * - a received message is invisible for the visibility timeout, then delivered again unless it was
 *   deleted with its latest receipt handle (an older handle deletes nothing);
 * - each receive counts; a message received `maxReceiveCount` times that becomes visible again goes
 *   to the dead-letter list instead of being delivered;
 * - a message sent with a delay (SendMessage's DelaySeconds, 0 to 900) is not received before its
 *   send time plus the delay, however often the queue is polled; until then it counts as delayed,
 *   not in flight, and its receive count starts at 0 (the webhook sender's retries wait this way);
 * - time is the injected clock's, so tests move it instead of waiting out a timeout or a delay.
 * Not modelled: a queue-wide delay, message attributes, FIFO, the 256 KB limit (checked, as SQS refuses).
 */

export type LocalMessage = {
  messageId: string
  body: string
  sentAt: number
  receiveCount: number
  firstReceivedAt?: number
  /** Invisible until then (ms, the queue's clock). */
  visibleAt: number
  /** The latest receive's handle; only it deletes the message. */
  receiptHandle?: string
}

export type ReceivedMessage = {
  messageId: string
  receiptHandle: string
  body: string
  receiveCount: number
  sentAt: number
  firstReceivedAt: number
}

/** SQS's largest message. */
const MAX_BODY_BYTES = 256 * 1024

export class LocalQueue {
  private readonly messages = new Map<string, LocalMessage>()
  /** Messages moved here after maxReceiveCount receives: what the DLQ would hold. */
  readonly deadLetters: LocalMessage[] = []
  private readonly listeners = new Set<() => void>()

  constructor(
    readonly spec: Pick<QueueSpec, 'id' | 'visibilityTimeoutSeconds' | 'maxReceiveCount'>,
    private readonly clock: Clock,
  ) {}

  /** SQS's SendMessage (`delaySeconds`: its DelaySeconds, 0 to 900). */
  send(body: string, delaySeconds = 0): string {
    if (Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES) {
      throw new Error(`Message of ${Buffer.byteLength(body, 'utf8')} bytes: SQS takes 262,144`)
    }
    if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > 900) {
      throw new Error(`DelaySeconds takes 0 to 900, got ${delaySeconds}`)
    }
    const messageId = randomUUID()
    const now = this.clock.now()
    const visibleAt = now + delaySeconds * 1000
    this.messages.set(messageId, { messageId, body, sentAt: now, receiveCount: 0, visibleAt })
    for (const listener of this.listeners) listener()
    return messageId
  }

  /** SQS's SendMessageBatch: at most 10 entries, ids unique; answers per entry. */
  sendBatch(entries: readonly { id: string; body: string; delaySeconds?: number }[]): {
    successful: { id: string; messageId: string }[]
    failed: { id: string; message: string }[]
  } {
    if (entries.length === 0 || entries.length > 10) {
      throw new Error(`SendMessageBatch takes 1 to 10 entries, got ${entries.length}`)
    }
    if (new Set(entries.map((e) => e.id)).size !== entries.length) {
      throw new Error('SendMessageBatch: entry ids must be distinct')
    }
    const successful: { id: string; messageId: string }[] = []
    const failed: { id: string; message: string }[] = []
    for (const entry of entries) {
      try {
        successful.push({ id: entry.id, messageId: this.send(entry.body, entry.delaySeconds) })
      } catch (error) {
        failed.push({ id: entry.id, message: (error as Error).message })
      }
    }
    return { successful, failed }
  }

  /**
   * SQS's ReceiveMessage: up to `max` (1-10) visible messages, oldest first, each now invisible
   * for the visibility timeout (or `visibilityTimeoutSeconds`). A visible message already received
   * maxReceiveCount times goes to the dead letters instead (SQS's redrive policy).
   */
  receive(max = 10, visibilityTimeoutSeconds = this.spec.visibilityTimeoutSeconds) {
    if (!Number.isInteger(max) || max < 1 || max > 10) {
      throw new Error(`ReceiveMessage takes 1 to 10 messages, got ${max}`)
    }
    const now = this.clock.now()
    const received: ReceivedMessage[] = []
    for (const message of this.messages.values()) {
      if (received.length >= max) break
      if (message.visibleAt > now) continue
      if (message.receiveCount >= this.spec.maxReceiveCount) {
        this.messages.delete(message.messageId)
        this.deadLetters.push({ ...message, receiptHandle: undefined })
        continue
      }
      message.receiveCount += 1
      message.firstReceivedAt ??= now
      message.visibleAt = now + visibilityTimeoutSeconds * 1000
      message.receiptHandle = `${message.messageId}#${message.receiveCount}#${randomUUID()}`
      received.push({
        messageId: message.messageId,
        receiptHandle: message.receiptHandle,
        body: message.body,
        receiveCount: message.receiveCount,
        sentAt: message.sentAt,
        firstReceivedAt: message.firstReceivedAt,
      })
    }
    return received
  }

  /** SQS's DeleteMessage: true when that handle was the message's latest receive. */
  delete(receiptHandle: string): boolean {
    const messageId = receiptHandle.split('#')[0] ?? ''
    const message = this.messages.get(messageId)
    if (message === undefined || message.receiptHandle !== receiptHandle) return false
    this.messages.delete(messageId)
    return true
  }

  /** SQS's ChangeMessageVisibility (0 makes it visible now). */
  changeVisibility(receiptHandle: string, seconds: number): boolean {
    const messageId = receiptHandle.split('#')[0] ?? ''
    const message = this.messages.get(messageId)
    if (message === undefined || message.receiptHandle !== receiptHandle) return false
    message.visibleAt = this.clock.now() + seconds * 1000
    return true
  }

  /**
   * SQS's ApproximateNumberOfMessages / ...NotVisible / ...Delayed, exactly, and the dead letters.
   * Delayed: sent with a delay not over yet, never received; in flight: received, not visible again yet.
   */
  counts() {
    const now = this.clock.now()
    let visible = 0
    let inFlight = 0
    let delayed = 0
    for (const message of this.messages.values()) {
      if (message.visibleAt <= now) visible++
      else if (message.receiveCount === 0) delayed++
      else inFlight++
    }
    return { visible, inFlight, delayed, deadLetters: this.deadLetters.length }
  }

  /** The earliest time a message now invisible becomes visible again (ms), if any. */
  nextVisibleAt(): number | undefined {
    let next: number | undefined
    const now = this.clock.now()
    for (const message of this.messages.values()) {
      if (message.visibleAt > now && (next === undefined || message.visibleAt < next)) {
        next = message.visibleAt
      }
    }
    return next
  }

  /** Called after every send (the local pipeline wakes its consumer). */
  onSend(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}

/** A fake ARN of the local queue, as an SQS event record carries it. */
export const localQueueArn = (id: string) => `arn:aws:sqs:local:000000000000:${id}`

/** The SQS event Lambda's event source mapping would hand the consumer for these messages. */
export const sqsEventOf = (queueId: string, messages: readonly ReceivedMessage[]): SQSEvent => ({
  Records: messages.map(
    (m): SQSRecord => ({
      messageId: m.messageId,
      receiptHandle: m.receiptHandle,
      body: m.body,
      attributes: {
        ApproximateReceiveCount: String(m.receiveCount),
        SentTimestamp: String(m.sentAt),
        SenderId: 'LOCAL',
        ApproximateFirstReceiveTimestamp: String(m.firstReceivedAt),
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(m.body, 'utf8').digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: localQueueArn(queueId),
      awsRegion: 'local',
    }),
  ),
})

/** An SQS-triggered handler: answers `{ batchItemFailures }` (SQSBatchResponse) or nothing. */
export type SqsBatchHandler = (event: SQSEvent) => Promise<unknown>

export type PollOutcome = {
  received: number
  deleted: number
  /** Left for redelivery: reported in batchItemFailures, or the whole batch when the handler threw or answered nonsense. */
  failed: number
  error?: unknown
}

/**
 * One poll of Lambda's SQS event source mapping with ReportBatchItemFailures: receive up to
 * `batchSize`, invoke the handler with the SQS event, then delete every message except those it
 * names in `batchItemFailures`. A handler that throws, or names an id that is not in the batch (or
 * an empty one), fails the whole batch, as Lambda does: nothing is deleted and each message comes
 * back after its visibility timeout.
 */
export const pollOnce = async (
  queue: LocalQueue,
  handler: SqsBatchHandler,
  batchSize: number,
): Promise<PollOutcome> => {
  const messages = queue.receive(batchSize)
  if (messages.length === 0) return { received: 0, deleted: 0, failed: 0 }
  let response: unknown
  try {
    response = await handler(sqsEventOf(queue.spec.id, messages))
  } catch (error) {
    return { received: messages.length, deleted: 0, failed: messages.length, error }
  }
  const ids = new Set(messages.map((m) => m.messageId))
  const failures = (response as SQSBatchResponse | undefined)?.batchItemFailures ?? []
  const named = new Set(failures.map((f) => f.itemIdentifier))
  if ([...named].some((id) => typeof id !== 'string' || id === '' || !ids.has(id))) {
    return {
      received: messages.length,
      deleted: 0,
      failed: messages.length,
      error: new Error('batchItemFailures names a message that is not in the batch'),
    }
  }
  let deleted = 0
  for (const message of messages) {
    if (!named.has(message.messageId) && queue.delete(message.receiptHandle)) deleted++
  }
  return { received: messages.length, deleted, failed: named.size }
}

/** The sender of functions/runtime/queue-sender.ts over a local queue (SendMessageBatch, each entry's delay too). */
export const localQueueSender = (queue: LocalQueue) => ({
  async sendBatch(entries: readonly { id: string; body: string; delaySeconds?: number }[]) {
    if (entries.length === 0) return { failed: [] as string[] }
    return { failed: queue.sendBatch(entries).failed.map((f) => f.id) }
  },
})
