import type { BatchChunk, BatchCursor, BatchRecord, RowResult, StoredRow } from '../domain/batch'
import type { GrantSender } from '../domain/grant'
import type { AuditEntry } from '../domain/people'
import type { ProgramRecord } from '../domain/program'
import type { CallOptions } from './grants.store'

/**
 * The batches of send to many as the use cases see them (domain/batch.ts): the commit, the worker
 * and a member's cancel. Outcomes are returned; only DynamoDB's own failures (unavailable,
 * throttled, aborted) are thrown.
 */

/**
 * `chunk_changed`: the chunk's results are not what the worker read (another delivery of the same
 * message, or this one's own write whose answer was lost). `final`: the batch is done or canceled.
 */
export type ChunkCommit = 'committed' | 'chunk_changed' | 'final'

export type ChunkCommitInput = {
  batch: BatchRecord
  index: number
  /** How many results the worker read: the chunk is written only if it still has as many. */
  before: number
  results: RowResult[]
  granted: number
  failed: number
  canceled: number
  /** Every row of the chunk has its result now. */
  complete: boolean
  now: number
}

/** The batches and their chunks of rows, by batch id: what the commit and the worker write. */
export interface BatchStore {
  getBatch(batchId: string, options?: CallOptions): Promise<BatchRecord | undefined>
  /** The chunks of rows, before the batch exists (idempotent: the keys carry the request hash). */
  putChunks(
    batchId: string,
    chunkPrefix: string,
    chunks: StoredRow[][],
    options?: CallOptions,
  ): Promise<void>
  /** The batch with its audit entry, unless it exists (a retried or racing commit): then that one. */
  createBatch(
    batch: BatchRecord,
    audit: AuditEntry,
    options?: CallOptions,
  ): Promise<{ kind: 'created' } | { kind: 'exists'; existing: BatchRecord }>
  getChunk(batch: BatchRecord, index: number, options?: CallOptions): Promise<BatchChunk>
  /** Chunks `from` .. `to - 1`, in order. */
  getChunks(
    batch: BatchRecord,
    from: number,
    to: number,
    options?: CallOptions,
  ): Promise<BatchChunk[]>
  /** Every chunk's message is on the queue. */
  markEnqueued(batchId: string, now: number, options?: CallOptions): Promise<void>
  /** A chunk's results and the batch's counters, in one write, from what the worker read. */
  commitChunk(input: ChunkCommitInput, options?: CallOptions): Promise<ChunkCommit>
  /** Every chunk is done: the batch is final, with its audit entry; false when it already was. */
  finish(
    batchId: string,
    status: 'done' | 'canceled',
    now: number,
    audit: AuditEntry,
    options?: CallOptions,
  ): Promise<boolean>
  /** The committer was told; false if someone already had marked it. */
  markNotified(batchId: string, now: number, options?: CallOptions): Promise<boolean>
  /** A chunk's message failed its last allowed delivery: the batch shows it. */
  markDeadLettered(batchId: string, chunk: number, options?: CallOptions): Promise<void>
}

export type BatchPage = { batches: BatchRecord[]; nextCursor: BatchCursor | undefined }

/**
 * What a cancel came to, with the batch as it stands:
 * - `done`: the cancel is recorded with its `batch.cancel` audit entry; the worker starts no row
 *   from now on (a row being granted at this moment may still be granted);
 * - `already`: a cancel was asked before (nothing written: a repeated cancel is the same cancel);
 * - `final`: the batch had finished (done, or canceled) before this cancel: nothing written;
 * - `missing`: no such batch of this issuer and program (another issuer's answers the same).
 */
export type CancelOutcome =
  | { outcome: 'done' | 'already' | 'final'; batch: BatchRecord }
  | { outcome: 'missing' }

/** A batch as the issuer's members see it: only within its issuer and program. */
export type BatchOfProgram = { batchId: string; issuerId: string; programId: string }

/** A program's batches for the management API: the listing and a member's cancel. */
export interface BatchListing {
  /** The program's head: whose it is. */
  findProgram(programId: string, options?: CallOptions): Promise<ProgramRecord | undefined>
  /** One batch of this issuer and program. */
  getBatch(input: BatchOfProgram, options?: CallOptions): Promise<BatchRecord | undefined>
  /** The program's batches, newest first, `limit` at most, after `cursor`. */
  listBatches(
    input: { issuerId: string; programId: string; limit: number; cursor?: BatchCursor | undefined },
    options?: CallOptions,
  ): Promise<BatchPage>
  /** Asks the batch to stop, with the audit entry, in one write. */
  requestCancel(
    input: BatchOfProgram & { actor: GrantSender; now: number; audit: AuditEntry },
    options?: CallOptions,
  ): Promise<CancelOutcome>
}
