import type { BatchCommitDeps } from '../../functions/core/batch-commit'
import {
  type BatchChunk,
  type BatchRecord,
  batchKey,
  chunkKey,
  type StoredRow,
} from '../../functions/domain/batch'
import type { AuditEntry } from '../../functions/domain/people'
import type { WorkerInvoker } from '../../functions/runtime/worker-invoker'
import type { CallOptions } from '../../functions/stores/grants.store'

type Methods = BatchCommitDeps['batches']
type Method = keyof Methods

/**
 * The batch store's commit methods (getBatch, putChunks, createBatch of
 * functions/stores/batches.dynamodb.ts) in memory, for the core's in-process tests. Batches and
 * their chunks live in one map keyed like the grants table (`batch#<batchId>`,
 * `batch#<batchId>#<prefix>#<chunk>`); `createBatch` writes the batch and its audit entry on
 * condition that no batch is there, or nothing (then it answers the batch that is). Reads hand
 * out copies.
 *
 * `failNext(method, error)` makes a method's next call throw; `beforeCreate` runs just before
 * createBatch's condition is checked (a racing commit that got there first).
 */
export class FakeBatchStore implements Methods {
  readonly calls: Method[] = []
  readonly state = {
    items: new Map<string, BatchRecord | BatchChunk>(),
    audit: [] as AuditEntry[],
  }
  beforeCreate: ((batch: BatchRecord) => void) | undefined
  private readonly failures = new Map<Method, unknown>()

  failNext(method: Method, error: unknown) {
    this.failures.set(method, error)
  }

  /** The batch as stored, or undefined. */
  batch(batchId: string): BatchRecord | undefined {
    return structuredClone(this.state.items.get(batchKey(batchId)) as BatchRecord | undefined)
  }

  /** Every stored batch. */
  batches(): BatchRecord[] {
    return [...this.state.items.values()].filter(
      (item): item is BatchRecord => item.itemType === 'grantBatch',
    )
  }

  /** The chunks stored under a batch and prefix, in order. */
  chunks(batchId: string, chunkPrefix: string): BatchChunk[] {
    const chunks: BatchChunk[] = []
    for (let i = 0; ; i++) {
      const chunk = this.state.items.get(chunkKey(batchId, chunkPrefix, i))
      if (chunk === undefined) return structuredClone(chunks)
      chunks.push(chunk as BatchChunk)
    }
  }

  /** Everything the store holds, to prove that a refusal wrote nothing. */
  snapshot() {
    return structuredClone({ items: [...this.state.items.entries()], audit: this.state.audit })
  }

  async getBatch(batchId: string, options?: CallOptions) {
    await this.enter('getBatch', options)
    const item = this.state.items.get(batchKey(batchId))
    return item?.itemType === 'grantBatch' ? structuredClone(item) : undefined
  }

  async putChunks(
    batchId: string,
    chunkPrefix: string,
    chunks: StoredRow[][],
    options?: CallOptions,
  ) {
    await this.enter('putChunks', options)
    chunks.forEach((rows, index) => {
      const grantId = chunkKey(batchId, chunkPrefix, index)
      const chunk: BatchChunk = {
        grantId,
        itemType: 'grantBatchChunk',
        batchId,
        index,
        rows: structuredClone(rows),
        results: [],
      }
      this.state.items.set(grantId, chunk)
    })
  }

  async createBatch(
    batch: BatchRecord,
    audit: AuditEntry,
    options?: CallOptions,
  ): Promise<{ kind: 'created' } | { kind: 'exists'; existing: BatchRecord }> {
    await this.enter('createBatch', options)
    this.beforeCreate?.(batch)
    const existing = this.state.items.get(batch.grantId)
    if (existing !== undefined) {
      return { kind: 'exists', existing: structuredClone(existing as BatchRecord) }
    }
    if (this.state.audit.some((e) => e.entryId === audit.entryId)) {
      throw new Error('Unexpected transaction cancellation: None,ConditionalCheckFailed')
    }
    this.state.items.set(batch.grantId, structuredClone(batch))
    this.state.audit.push(structuredClone(audit))
    return { kind: 'created' }
  }

  private async enter(method: Method, options: CallOptions | undefined) {
    this.calls.push(method)
    // A store call is asynchronous: let other requests in between, as a network call would.
    await Promise.resolve()
    options?.signal?.throwIfAborted()
    if (this.failures.has(method)) {
      const error = this.failures.get(method)
      this.failures.delete(method)
      throw error
    }
  }
}

/** A WorkerInvoker that records what it was asked to start; `failNext` makes one call throw. */
export const recordingInvoker = () => {
  const started: { batchId: string }[] = []
  let failure: unknown
  const invoke: WorkerInvoker = async (event) => {
    await Promise.resolve()
    if (failure !== undefined) {
      const error = failure
      failure = undefined
      throw error
    }
    started.push({ ...event })
  }
  return {
    invoke,
    started,
    failNext: (error: unknown) => {
      failure = error
    },
  }
}
