import type { BatchCommitDeps } from '../../functions/core/batch-commit'
import {
  type BatchChunk,
  type BatchRecord,
  type BatchRowsMessage,
  batchKey,
  chunkKey,
  type StoredRow,
} from '../../functions/domain/batch'
import type { AuditEntry } from '../../functions/domain/people'
import type { QueueSender } from '../../functions/runtime/queue-sender'
import type { CallOptions } from '../../functions/stores/grants.store'

type Methods = BatchCommitDeps['batches']
type Method = keyof Methods

/**
 * The batch store's commit methods (getBatch, putChunks, createBatch, markEnqueued of
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

  async markEnqueued(batchId: string, now: number, options?: CallOptions) {
    await this.enter('markEnqueued', options)
    const item = this.state.items.get(batchKey(batchId)) as BatchRecord
    this.state.items.set(batchKey(batchId), { ...item, enqueuedAt: new Date(now).toISOString() })
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

/**
 * The GrantBatchRows queue as a QueueSender that records the chunk messages it took;
 * `failCalls(n)` makes its next n SendMessageBatch calls take no entry (as SQS unreachable).
 */
export const recordingQueue = () => {
  const started: BatchRowsMessage[] = []
  let failing = 0
  const queue: QueueSender = {
    async sendBatch(entries) {
      await Promise.resolve()
      if (failing > 0) {
        failing--
        return { failed: entries.map((e) => e.id) }
      }
      for (const entry of entries) started.push(JSON.parse(entry.body) as BatchRowsMessage)
      return { failed: [] }
    },
  }
  return {
    queue,
    started,
    failCalls: (n: number) => {
      failing = n
    },
  }
}
