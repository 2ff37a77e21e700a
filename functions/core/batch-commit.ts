import {
  type BatchRecord,
  batchIdFor,
  batchKey,
  batchRequestHash,
  packChunks,
} from '../domain/batch'
import type { CheckedRows } from '../domain/batch-rows'
import { IdempotencyKeyReused, ProgramInactive } from '../domain/errors'
import type { Actor } from '../domain/people'
import { isProgramOpen, type ProgramRecord } from '../domain/program'
import type { WorkerInvoker } from '../runtime/worker-invoker'
import { auditEntry } from '../stores/audit'
import type { DynamoDbBatchStore } from '../stores/batches.dynamodb'

export type BatchCommitDeps = {
  batches: Pick<DynamoDbBatchStore, 'getBatch' | 'putChunks' | 'createBatch'>
  /** Starts (or resumes) the worker on a batch. */
  invoke: WorkerInvoker
  clock: () => number
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
 * `batch.commit` audit entry in one transaction (the commit point), then the worker is started.
 * The Idempotency-Key names the batch: a retried or racing commit answers that batch (resumed if
 * its worker's lease ran out) and a different CSV, reason or program under the same key is
 * `idempotency_key_reused`. If starting the worker fails, the error goes to the caller and the
 * same commit retried starts it.
 */
export const makeBatchCommit =
  ({ batches, invoke, clock }: BatchCommitDeps) =>
  async (input: BatchCommitInput): Promise<BatchCommitResult> => {
    const { program, issuerId, actor, checked, reason, signal } = input
    if (!isProgramOpen(program)) throw new ProgramInactive(program.status)
    const batchId = batchIdFor(issuerId, input.idempotencyKey)
    const requestHash = batchRequestHash(program.programId, input.csv, reason)

    const replay = async (existing: BatchRecord): Promise<BatchCommitResult> => {
      if (existing.requestHash !== requestHash) throw new IdempotencyKeyReused()
      if (existing.status !== 'done' && existing.leaseUntil <= clock()) {
        await invoke({ batchId }, { signal })
      }
      return { batch: existing, replayed: true, now: clock() }
    }

    const existing = await batches.getBatch(batchId, { signal })
    if (existing) return replay(existing)

    const chunkPrefix = requestHash.slice(0, 12)
    const chunks = packChunks(checked.rows)
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
      total: checked.rows.length,
      refused,
      amount: checked.amount,
      granted: 0,
      failed: refused,
      nextChunk: 0,
      status: 'queued',
      leaseUntil: 0,
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
    await invoke({ batchId }, { signal })
    return { batch, replayed: false, now }
  }
