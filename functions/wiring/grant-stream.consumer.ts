import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda'
import { queueOf, type Runtime } from '../composition'
import { OFFER_MAIL_QUEUE, WEBHOOKS_QUEUE } from '../consumers'
import { readGrantStream } from '../core/grant-stream'
import { webhookEventsOf } from '../core/webhook-events'
import type { TimerRecord } from '../domain/offer-timers'
import type { WebhookQueueMessage } from '../domain/webhooks'
import { logger } from '../runtime/logger'
import type { QueueEntry, QueueSender } from '../runtime/queue-sender'
import { DynamoDbOfferTimerStore } from '../stores/offer-timers.dynamodb'
import { tableChangeOf } from '../stores/stream-records.dynamodb'
import { streamBatchResponse } from './stream-batch-failures'

/** SendMessageBatch's limit. */
const SEND_CHUNK = 10

export type GrantStreamDeps = {
  /** The OfferMail queue. */
  offerMail: QueueSender
  /** The Webhooks queue: one `event` message per webhook event (core/webhook-events.ts). */
  webhooks: QueueSender
  /** Waits between tries of unprocessed timer writes (tests pass one that records). */
  sleep?: (ms: number) => Promise<void>
}

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) =>
    items.slice(i * size, (i + 1) * size),
  )

/**
 * The GrantStream function (functions/consumers.ts): a batch of the grants table's stream ->
 * the timers of new grants (BatchWriteItem on `timers`), the offer mail (SendMessageBatch to
 * OfferMail), the webhook events (core/webhook-events.ts; SendMessageBatch to Webhooks, one
 * `event` message each); the programs' figures are the stream's other reader's (GrantFigures,
 * wiring/grant-figures.consumer.ts). Answers a partial batch response naming the first record
 * whose timers, messages or events could not all be handed over: Lambda (or local/stream-poller.ts) retries from
 * that record on, so nothing after it is lost and what came before is not sent again. Timer writes
 * are idempotent (a retried record writes the same keys); a message may be sent twice, as SQS may
 * deliver twice: an event's id is derived from its change, so its repeat makes the same webhook
 * messages (the sender's fan-out writes them by id).
 */
export const makeGrantStreamHandler = (runtime: Runtime, deps: Partial<GrantStreamDeps> = {}) => {
  const { documentClient, config } = runtime
  const { sleep } = deps
  // Lambda's entry: the runtime's SQS senders (wiring/queue-runtime.ts); npm start and the tests
  // pass the local queues'.
  const offerMail = deps.offerMail ?? queueOf(runtime, OFFER_MAIL_QUEUE.id)
  const webhooks = deps.webhooks ?? queueOf(runtime, WEBHOOKS_QUEUE.id)

  const timerStore = new DynamoDbOfferTimerStore(documentClient, config.tables)
  /** Writes timers; answers the ones still unwritten after the store's tries. */
  const writeTimers = (timers: readonly TimerRecord[]) =>
    timerStore.putTimers(timers, {
      sleep,
      failedSend: (error) => logger.warn('Timer write failed', { error: (error as Error).name }),
    })

  return async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    // Decoded once: both readers (offer mail and timers, webhook events) see plain records.
    const changes = event.Records.map(tableChangeOf)
    const outputs = readGrantStream(changes)
    const failedRecords = new Set<string>()

    const timers = outputs.flatMap((o) =>
      o.timers.map((timer) => ({ seq: o.sequenceNumber, timer })),
    )
    const unwritten = new Set(await writeTimers(timers.map((t) => t.timer)))
    for (const { seq, timer } of timers) if (unwritten.has(timer)) failedRecords.add(seq)

    const mail = outputs.flatMap((o) =>
      o.messages.map((message, n) => ({
        seq: o.sequenceNumber,
        // SendMessageBatch ids: letters, digits, - and _, unique within the call.
        id: `${o.sequenceNumber}-${n}`,
        body: JSON.stringify(message),
      })),
    )
    // Every record, not only grants': a batch's completion is an event too.
    const events = changes.flatMap((change) => {
      const seq = change.sequenceNumber
      if (seq === undefined) return []
      return webhookEventsOf(change).map((webhookEvent, n) => ({
        seq,
        id: `${seq}-${n}`,
        body: JSON.stringify({ kind: 'event', event: webhookEvent } satisfies WebhookQueueMessage),
      }))
    })
    /** Hands entries to a queue 10 at a time; a refused entry fails the record it came from. */
    const send = async (queue: QueueSender, entries: readonly (QueueEntry & { seq: string })[]) => {
      for (const chunk of chunks(entries, SEND_CHUNK)) {
        const { failed } = await queue.sendBatch(chunk.map(({ id, body }) => ({ id, body })))
        const failedIds = new Set(failed)
        for (const entry of chunk) if (failedIds.has(entry.id)) failedRecords.add(entry.seq)
      }
    }
    // The two queues side by side: neither waits for the other.
    await Promise.all([send(offerMail, mail), send(webhooks, events)])

    return streamBatchResponse('Grant stream', changes, failedRecords)
  }
}
