import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs'

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
