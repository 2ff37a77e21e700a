import { auditEntry } from '../domain/audit-entry'
import {
  type BatchRecord,
  type BatchRowsMessage,
  batchIdFor,
  batchKey,
  batchListSlot,
  batchRequestHash,
  batchStatus,
  FINAL_BATCH_STATUSES,
  packChunks,
} from '../domain/batch'
import type { CheckedRows } from '../domain/batch-rows'
import { IdempotencyKeyReused, ProgramInactive } from '../domain/errors'
import type { Actor } from '../domain/people'
import { isProgramOpen, type ProgramRecord } from '../domain/program'
import { QueueRefused, type QueueSender, sendAll } from '../runtime/queue-sender'
import type { RetryDeps } from '../runtime/retry'
import type { BatchStore } from '../stores/batches.store'
import { throttled } from '../stores/store-errors'

export type BatchCommitDeps = {
  batches: Pick<BatchStore, 'getBatch' | 'putChunks' | 'createBatch' | 'markEnqueued'>
  /** The GrantBatchRows queue: one message per chunk starts (or resumes) the work. */
  queue: QueueSender
  clock: () => number
  /** Waits between sends of refused messages (tests pass one that returns at once). */
  sleep?: RetryDeps['sleep']
  /** Rows a chunk (BATCH_LIMITS.chunkRows): tests pass fewer, for many chunks from few rows. */
  chunkRows?: number
}

/**
 * One message per chunk of the batch on the queue, every entry taken or an error (the caller
 * answers 503 and a retried commit sends them again: the worker takes a chunk twice as once).
 */
export const sendChunks = async (queue: QueueSender, batch: BatchRecord, deps: RetryDeps = {}) => {
  const entries = Array.from({ length: batch.chunks }, (_, chunk) => ({
    id: String(chunk),
    body: JSON.stringify({ batchId: batch.batchId, chunk } satisfies BatchRowsMessage),
  }))
  try {
    await sendAll(queue, entries, deps)
  } catch (error) {
    if (!(error instanceof QueueRefused)) throw error
    throw throttled(`the queue took ${error.taken} of ${error.total} chunk messages`)
  }
}

export type BatchCommitInput = {
  /** The path's program, already known to be the issuer's. */
  program: ProgramRecord
  issuerId: string
  actor: Extract<Actor, { kind: 'person' }>
  csv: string
  reason: string | undefined
  checked: CheckedRows
  idempotencyKey: string
  requestId: string
  signal?: AbortSignal | undefined
}

export type BatchCommitResult = { batch: BatchRecord; replayed: boolean; now: number }

/**
 * Commits a batch of send to many: the rows are stored (in chunks), then the batch with its
 * `batch.commit` audit entry in one transaction (the commit point), then one message per chunk goes
 * to the GrantBatchRows queue and the batch records that they all did (`enqueuedAt`).
 * The Idempotency-Key names the batch: a retried or racing commit answers that batch, and a
 * different CSV, reason or program under the same key is `idempotency_key_reused`. A retried commit
 * sends the chunks again when the first never finished sending them, or when the batch has
 * stalled (a chunk in the dead letters, nothing moving): the worker takes a chunk twice as once.
 * Whether the program is open is asked of a new batch only: a commit retried after the program was
 * paused answers the batch it made (its rows then fail as the grant API refuses them).
 */
export const makeBatchCommit =
  ({ batches, queue, clock, sleep, chunkRows }: BatchCommitDeps) =>
  async (input: BatchCommitInput): Promise<BatchCommitResult> => {
    const { program, issuerId, actor, checked, reason, signal } = input
    const batchId = batchIdFor(issuerId, input.idempotencyKey)
    const requestHash = batchRequestHash(program.programId, input.csv, reason)

    const enqueue = async (batch: BatchRecord) => {
      await sendChunks(queue, batch, sleep === undefined ? {} : { sleep })
      await batches.markEnqueued(batch.batchId, clock(), { signal })
    }

    const replay = async (existing: BatchRecord): Promise<BatchCommitResult> => {
      if (existing.requestHash !== requestHash) throw new IdempotencyKeyReused()
      const now = clock()
      if (
        !FINAL_BATCH_STATUSES.includes(existing.status) &&
        (existing.enqueuedAt === undefined || batchStatus(existing, now) === 'stalled')
      ) {
        await enqueue(existing)
      }
      return { batch: existing, replayed: true, now }
    }

    const existing = await batches.getBatch(batchId, { signal })
    if (existing) return replay(existing)
    if (!isProgramOpen(program)) throw new ProgramInactive(program.status)

    const chunkPrefix = requestHash.slice(0, 12)
    const chunks = packChunks(checked.rows, chunkRows)
    await batches.putChunks(batchId, chunkPrefix, chunks, { signal })
    const now = clock()
    const at = new Date(now).toISOString()
    const refused = checked.invalid + checked.duplicates
    const batch: BatchRecord = {
      grantId: batchKey(batchId),
      itemType: 'grantBatch',
      batchId,
      issuerId,
      program: program.programId,
      mode: program.mode,
      ...(reason === undefined ? {} : { reason }),
      idempotencyKey: input.idempotencyKey,
      requestHash,
      chunkPrefix,
      chunks: chunks.length,
      createdBy: { sub: actor.sub, email: actor.email },
      submittedAt: at,
      // The program's batch listing (byProgramSlot), newest first.
      programSlot: batchListSlot(program.programId),
      createdAt: at,
      total: checked.rows.length,
      refused,
      amount: checked.amount,
      granted: 0,
      failed: refused,
      canceled: 0,
      chunksDone: 0,
      status: 'queued',
      updatedAt: at,
      requestId: input.requestId,
    }
    const audit = auditEntry({
      issuerId,
      actor,
      action: 'batch.commit',
      target: { type: 'batch', id: batchId },
      now,
      requestId: input.requestId,
      details: {
        programId: program.programId,
        rows: checked.rows.length,
        valid: checked.valid,
        refused,
        amount: checked.amount,
      },
    })
    const outcome = await batches.createBatch(batch, audit, { signal })
    if (outcome.kind === 'exists') return replay(outcome.existing)
    await enqueue(batch)
    return {
      batch: { ...batch, enqueuedAt: new Date(clock()).toISOString() },
      replayed: false,
      now,
    }
  }
