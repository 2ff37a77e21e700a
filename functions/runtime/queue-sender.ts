import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs'
import { type RetryDeps, retrying } from './retry'
import * as RETRY from './retry-policies'

/**
 * Hands messages to a queue: SQS in AWS (sqsQueueSender), the in-process queue under `npm start`
 * and in tests (local/queue.ts, localQueueSender). At most 10 entries a call, as SendMessageBatch.
 * Answers the ids of the entries that were not taken; the caller retries them (a stream reader by
 * failing the record they came from).
 */
export type QueueSender = {
  sendBatch(entries: readonly QueueEntry[]): Promise<{ failed: string[] }>
}

/** One message: `delaySeconds` (0 to 900, SQS's bound) keeps it invisible that long after the send. */
export type QueueEntry = { id: string; body: string; delaySeconds?: number }

/** SendMessageBatch to the queue at `queueUrl`; a call that fails fails every entry. */
export const sqsQueueSender = (client: SQSClient, queueUrl: string): QueueSender => ({
  async sendBatch(entries) {
    if (entries.length === 0) return { failed: [] }
    try {
      const result = await client.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: entries.map((e) => ({
            Id: e.id,
            MessageBody: e.body,
            ...(e.delaySeconds ? { DelaySeconds: e.delaySeconds } : {}),
          })),
        }),
      )
      return { failed: (result.Failed ?? []).map((f) => f.Id ?? '') }
    } catch {
      return { failed: entries.map((e) => e.id) }
    }
  },
})

/**
 * A Lambda entry's queue senders: one SQS client, each queue at the URL the stack set in its
 * variable (functions/consumers.ts `urlVariable`). A missing URL throws, so the function stops at
 * init rather than after its first request or record has written.
 */
export const sqsQueueSenders = <Id extends string>(
  queues: readonly { id: Id; urlVariable: string }[],
  env: Readonly<Record<string, string | undefined>>,
  region: string | undefined,
  client: SQSClient = new SQSClient({ region }),
): Record<Id, QueueSender> => {
  const senders = {} as Record<Id, QueueSender>
  for (const { id, urlVariable } of queues) {
    const url = env[urlVariable]
    if (url === undefined || url === '') {
      throw new Error(`Missing required environment variable ${urlVariable}.`)
    }
    senders[id] = sqsQueueSender(client, url)
  }
  return senders
}

/** SendMessageBatch's limit. */
export const SEND_BATCH_LIMIT = 10

/** Some entries were still refused after every attempt: how many of how many were taken. */
export class QueueRefused extends Error {
  constructor(
    readonly taken: number,
    readonly total: number,
  ) {
    super(`the queue took ${taken} of ${total} messages`)
    this.name = 'QueueRefused'
  }
}

/** Thrown between attempts of one call: the entries it did not take are sent again. */
class PartlyTaken extends Error {}

/**
 * Every entry onto the queue: SEND_BATCH_LIMIT a call, `parallel` calls at once, each call's
 * refused entries sent again with a backoff (runtime/retry.ts); throws QueueRefused when some are
 * still refused after the last attempt (the caller answers 503, or fails its record, and a retry
 * of the whole sends them again: consumers take a message twice as once).
 */
export const sendAll = async (
  queue: QueueSender,
  entries: readonly QueueEntry[],
  { parallel = 5, ...deps }: RetryDeps & { parallel?: number; signal?: AbortSignal } = {},
): Promise<void> => {
  const groups: QueueEntry[][] = []
  for (let i = 0; i < entries.length; i += SEND_BATCH_LIMIT) {
    groups.push(entries.slice(i, i + SEND_BATCH_LIMIT))
  }
  let refused = 0
  let next = 0
  const sender = async () => {
    while (next < groups.length) {
      let pending = groups[next++] as QueueEntry[]
      await retrying(
        async () => {
          const { failed } = await queue.sendBatch(pending)
          pending = pending.filter((e) => failed.includes(e.id))
          if (pending.length > 0) throw new PartlyTaken()
        },
        {
          ...deps,
          backoff: RETRY.queueSend,
          again: (error) => error instanceof PartlyTaken,
          exhausted: () => {
            refused += pending.length
          },
        },
      )
    }
  }
  await Promise.all(Array.from({ length: Math.min(parallel, groups.length) }, sender))
  if (refused > 0) throw new QueueRefused(entries.length - refused, entries.length)
}
