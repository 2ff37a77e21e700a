import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb'
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda'
import type { Runtime } from '../composition'
import type { TimerRecord } from '../domain/offer-timers'
import { logger } from '../runtime/logger'
import type { QueueSender } from '../runtime/queue-sender'
import { readGrantStream } from './grant-stream'

/** BatchWriteItem's limit. */
const WRITE_CHUNK = 25
/** SendMessageBatch's limit. */
const SEND_CHUNK = 10
/** Tries of a chunk's unprocessed items before the records they came from are failed. */
const WRITE_TRIES = 4

export type GrantStreamDeps = {
  /** The OfferMail queue. */
  offerMail: QueueSender
  /** Waits between tries of unprocessed timer writes (tests pass one that records). */
  sleep?: (ms: number) => Promise<void>
}

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) =>
    items.slice(i * size, (i + 1) * size),
  )

/**
 * The GrantStream function (functions/consumers.ts): a batch of the grants table's stream ->
 * the timers of new grants (BatchWriteItem on `timers`) and the offer mail (SendMessageBatch to
 * OfferMail). Answers a partial batch response naming the first record whose timers or messages
 * could not all be handed over: Lambda (or local/stream-poller.ts) retries from that record on, so
 * nothing after it is lost and what came before is not sent again. Timer writes are idempotent (a
 * retried record writes the same keys); a message may be sent twice, as SQS may deliver twice.
 */
export const makeGrantStreamHandler = (runtime: Runtime, deps: GrantStreamDeps) => {
  const { documentClient, config } = runtime
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)))

  /** Writes timers; answers the ones still unwritten after WRITE_TRIES. */
  const writeTimers = async (timers: readonly TimerRecord[]): Promise<TimerRecord[]> => {
    const left: TimerRecord[] = []
    for (const chunk of chunks(timers, WRITE_CHUNK)) {
      let pending: TimerRecord[] = chunk
      for (let attempt = 0; attempt < WRITE_TRIES && pending.length > 0; attempt++) {
        if (attempt > 0) await sleep(50 * 2 ** attempt)
        try {
          const result = await documentClient.send(
            new BatchWriteCommand({
              RequestItems: {
                [config.tables.timers]: pending.map((timer) => ({ PutRequest: { Item: timer } })),
              },
            }),
          )
          const unprocessed = result.UnprocessedItems?.[config.tables.timers] ?? []
          pending = unprocessed.map((r) => r.PutRequest?.Item as TimerRecord)
        } catch (error) {
          logger.warn('Timer write failed', { error: (error as Error).name })
        }
      }
      left.push(...pending)
    }
    return left
  }

  return async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const outputs = readGrantStream(event.Records)
    const failedRecords = new Set<string>()

    const timers = outputs.flatMap((o) =>
      o.timers.map((timer) => ({ seq: o.sequenceNumber, timer })),
    )
    const unwritten = new Set(await writeTimers(timers.map((t) => t.timer)))
    for (const { seq, timer } of timers) if (unwritten.has(timer)) failedRecords.add(seq)

    const entries = outputs.flatMap((o) =>
      o.messages.map((message, n) => ({
        seq: o.sequenceNumber,
        // SendMessageBatch ids: letters, digits, - and _, unique within the call.
        id: `${o.sequenceNumber}-${n}`,
        body: JSON.stringify(message),
      })),
    )
    for (const chunk of chunks(entries, SEND_CHUNK)) {
      const { failed } = await deps.offerMail.sendBatch(chunk)
      const failedIds = new Set(failed)
      for (const entry of chunk) if (failedIds.has(entry.id)) failedRecords.add(entry.seq)
    }

    // The first failed record in stream order: the retry starts there.
    const first = event.Records.find(
      (r) =>
        r.dynamodb?.SequenceNumber !== undefined && failedRecords.has(r.dynamodb.SequenceNumber),
    )
    if (first?.dynamodb?.SequenceNumber !== undefined) {
      logger.warn('Grant stream: records left for a retry', {
        from: first.dynamodb.SequenceNumber,
        failed: failedRecords.size,
      })
      return { batchItemFailures: [{ itemIdentifier: first.dynamodb.SequenceNumber }] }
    }
    return { batchItemFailures: [] }
  }
}
