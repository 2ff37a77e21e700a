import { auditEntry } from '../domain/audit-entry'
import { type BatchRecord, batchStatus, FINAL_BATCH_STATUSES, rowsLeft } from '../domain/batch'
import { BatchFinished, BatchNotFound } from '../domain/errors'
import type { Actor } from '../domain/people'
import type { QueueSender } from '../runtime/queue-sender'
import type { RetryDeps } from '../runtime/retry'
import type { BatchListing, BatchStore } from '../stores/batches.store'
import { sendChunks } from './batch-commit'

export type BatchCancelDeps = {
  listing: Pick<BatchListing, 'getBatch' | 'requestCancel'>
  batches: Pick<BatchStore, 'markEnqueued'>
  /** The GrantBatchRows queue: a stalled batch's chunks are sent again so the worker can stop it. */
  queue: QueueSender
  clock: () => number
  /** Waits between sends of refused messages (tests pass one that returns at once). */
  sleep?: RetryDeps['sleep']
}

export type BatchCancelInput = {
  batchId: string
  issuerId: string
  programId: string
  actor: Extract<Actor, { kind: 'person' }>
  requestId: string
  signal?: AbortSignal | undefined
}

export type BatchCancelResult = {
  batch: BatchRecord
  /** The batch was stalled and its chunks went to the queue again. */
  resent: boolean
}

/**
 * Asks a batch to stop (`cancelRequestedAt` with its `batch.cancel` audit entry, one transaction).
 * Only the worker stops rows, as it takes a chunk: so a stalled batch (a chunk in the dead letters,
 * chunks never handed to the queue, nothing moving for a while) would stay `canceling` until
 * someone redrove it. Its chunks are therefore sent again, by this cancel or by the same cancel
 * asked again: the worker marks every row not yet tried `canceled`, finishes the batch and clears
 * the dead-letter marks (a chunk taken twice is taken once). Asked again of a batch that is not
 * stalled: the same cancel, nothing written or sent. A batch that finished before any cancel:
 * BatchFinished; another issuer's or program's: BatchNotFound.
 */
export const makeBatchCancel =
  ({ listing, batches, queue, clock, sleep }: BatchCancelDeps) =>
  async (input: BatchCancelInput): Promise<BatchCancelResult> => {
    const { batchId, issuerId, programId, actor, signal } = input
    // What the audit entry says was left, and whether the batch is stalled: read before the
    // cancel, whose own write makes the batch look busy (`updatedAt`).
    const before = await listing.getBatch({ batchId, issuerId, programId }, { signal })
    if (!before) throw new BatchNotFound(batchId)
    const now = clock()
    const result = await listing.requestCancel(
      {
        batchId,
        issuerId,
        programId,
        actor: { sub: actor.sub, email: actor.email },
        now,
        audit: auditEntry({
          issuerId,
          actor,
          action: 'batch.cancel',
          target: { type: 'batch', id: batchId },
          now,
          requestId: input.requestId,
          details: {
            programId,
            total: before.total,
            granted: before.granted,
            failed: before.failed,
            left: rowsLeft(before),
          },
        }),
      },
      { signal },
    )
    if (result.outcome === 'missing') throw new BatchNotFound(batchId)
    // Finished before anyone asked: nothing to stop. Finished after a cancel was asked: that
    // cancel, asked again.
    if (result.outcome === 'final') {
      if (result.batch.cancelRequestedAt === undefined) {
        throw new BatchFinished(batchId, result.batch.status)
      }
      return { batch: result.batch, resent: false }
    }
    const stalled =
      !FINAL_BATCH_STATUSES.includes(result.batch.status) && batchStatus(before, now) === 'stalled'
    if (!stalled) return { batch: result.batch, resent: false }
    await sendChunks(queue, result.batch, sleep === undefined ? {} : { sleep })
    if (result.batch.enqueuedAt === undefined) {
      await batches.markEnqueued(batchId, clock(), { signal })
    }
    return { batch: result.batch, resent: true }
  }
