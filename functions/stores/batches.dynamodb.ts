import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import {
  type BatchChunk,
  type BatchRecord,
  batchKey,
  chunkKey,
  type StoredRow,
} from '../domain/batch'
import type { AuditEntry } from '../domain/people'
import { auditPut } from './audit'
import type { BatchStore, ChunkCommit, ChunkCommitInput } from './batches.store'
import type { CallOptions } from './grants.store'
import { batchGetAll, batchWriteAll } from './kernel/batch'
import { conditional } from './kernel/conditional'
import { getItem } from './kernel/get'
import { type TransactItem, transact } from './kernel/transact'
import { busy, throttled } from './store-errors'

/**
 * The batches' items (domain/batch.ts): in the grants table, with the audit table for the entries
 * of a commit and of a finished batch. Outcomes are returned; only DynamoDB's own failures
 * (unavailable, throttled, aborted) are thrown.
 */
export type BatchTables = { grants: string; audit: string }

/**
 * One transaction, once: `done`, or the indexes whose condition failed. A throttle is thrown as
 * the store's `throttled`; another transaction holding an item (every chunk's commit writes the
 * batch's counters: DynamoDB answers so under concurrent commits, the contention model too,
 * bench/contention/batch-rows.ts) as `busy`, worth another try.
 */
const transactOnce = async (
  client: DynamoDBDocumentClient,
  items: TransactItem[],
  signal: AbortSignal | undefined,
): Promise<{ failed: number[]; cause: unknown } | 'done'> => {
  const outcome = await transact(client, items, { signal })
  if (outcome.kind === 'done') return 'done'
  if (outcome.kind === 'failed') return outcome
  if (outcome.reason === 'throttled') throw throttled('a batch transaction', outcome.cause)
  throw busy(1, 0, 'A batch transaction')
}

export class DynamoDbBatchStore implements BatchStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: BatchTables,
  ) {}

  async getBatch(batchId: string, options: CallOptions = {}) {
    const item = await getItem(
      this.client,
      this.tables.grants,
      { grantId: batchKey(batchId) },
      options,
    )
    return item?.itemType === 'grantBatch' ? (item as BatchRecord) : undefined
  }

  /**
   * The chunks of rows, before the batch exists: each Put is idempotent (the keys carry the
   * request hash, so a commit racing another with a different CSV never writes over its rows).
   */
  async putChunks(
    batchId: string,
    chunkPrefix: string,
    chunks: StoredRow[][],
    { signal }: CallOptions = {},
  ) {
    const items = chunks.map(
      (rows, index): BatchChunk => ({
        grantId: chunkKey(batchId, chunkPrefix, index),
        itemType: 'grantBatchChunk',
        batchId,
        index,
        rows,
        results: [],
      }),
    )
    const unwritten = await batchWriteAll(
      this.client,
      this.tables.grants,
      items.map((item) => ({ PutRequest: { Item: item } })),
      { signal },
    )
    if (unwritten.length > 0) throw throttled('BatchWriteItem left items unprocessed')
  }

  /**
   * The batch itself with its audit entry, on condition that it does not exist yet: the commit
   * point. When it exists (a retried or racing commit), that batch.
   */
  async createBatch(
    batch: BatchRecord,
    audit: AuditEntry,
    { signal }: CallOptions = {},
  ): Promise<{ kind: 'created' } | { kind: 'exists'; existing: BatchRecord }> {
    const outcome = await transactOnce(
      this.client,
      [
        {
          Put: {
            TableName: this.tables.grants,
            Item: batch,
            ConditionExpression: 'attribute_not_exists(grantId)',
          },
        },
        auditPut(this.tables.audit, audit),
      ],
      signal,
    )
    if (outcome === 'done') return { kind: 'created' }
    if (!outcome.failed.includes(0)) throw outcome.cause
    const existing = await this.getBatch(batch.batchId, { signal })
    if (!existing) throw throttled('a batch cancelled, then not found', outcome.cause)
    return { kind: 'exists', existing }
  }

  async getChunk(batch: BatchRecord, index: number, options: CallOptions = {}) {
    const key = { grantId: chunkKey(batch.batchId, batch.chunkPrefix, index) }
    const item = await getItem(this.client, this.tables.grants, key, options)
    if (!item) throw new Error(`Chunk ${index} of batch ${batch.batchId} is missing`)
    return item as BatchChunk
  }

  /** Chunks `from` .. `to - 1`, in order, strongly consistent. */
  async getChunks(batch: BatchRecord, from: number, to: number, { signal }: CallOptions = {}) {
    const keys = []
    for (let i = from; i < to; i++)
      keys.push({ grantId: chunkKey(batch.batchId, batch.chunkPrefix, i) })
    const found = await batchGetAll<BatchChunk>(this.client, this.tables.grants, keys, { signal })
    return found.sort((a, b) => a.index - b.index)
  }

  /** Every chunk's message is on the queue (a retried commit sends them again until this is set). */
  async markEnqueued(batchId: string, now: number, { signal }: CallOptions = {}) {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tables.grants,
        Key: { grantId: batchKey(batchId) },
        UpdateExpression: 'SET enqueuedAt = :at',
        ConditionExpression: 'itemType = :batch',
        ExpressionAttributeValues: { ':at': new Date(now).toISOString(), ':batch': 'grantBatch' },
      }),
      { abortSignal: signal },
    )
  }

  /**
   * A chunk's results so far and the batch's counters, in one transaction: the counters can never
   * disagree with the rows. Only from the results the worker read (`before`), so a second delivery
   * of the same chunk, or a redelivery racing the first, never counts a row twice: the loser is told
   * `chunk_changed` and reads the chunk again.
   */
  async commitChunk(input: ChunkCommitInput, { signal }: CallOptions = {}): Promise<ChunkCommit> {
    const { batch, index } = input
    const at = new Date(input.now).toISOString()
    // A chunk that once went to the dead letters and is done now is no longer shown as such.
    const redriven = input.complete && batch.deadLettered?.has(index) === true
    const outcome = await transactOnce(
      this.client,
      [
        {
          Update: {
            TableName: this.tables.grants,
            Key: { grantId: chunkKey(batch.batchId, batch.chunkPrefix, index) },
            UpdateExpression: 'SET results = :results',
            ConditionExpression: 'size(results) = :before',
            ExpressionAttributeValues: { ':results': input.results, ':before': input.before },
          },
        },
        {
          Update: {
            TableName: this.tables.grants,
            Key: { grantId: batchKey(batch.batchId) },
            UpdateExpression: `SET granted = granted + :granted, failed = failed + :failed, canceled = if_not_exists(canceled, :zero) + :canceled, chunksDone = if_not_exists(chunksDone, :zero) + :done, #status = :running, startedAt = if_not_exists(startedAt, :at), updatedAt = :at${redriven ? ' DELETE deadLettered :index' : ''}`,
            ConditionExpression: '#status IN (:queued, :running)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':granted': input.granted,
              ':failed': input.failed,
              ':canceled': input.canceled,
              ':zero': 0,
              ':done': input.complete ? 1 : 0,
              ':running': 'running',
              ':queued': 'queued',
              ':at': at,
              ...(redriven ? { ':index': new Set([index]) } : {}),
            },
          },
        },
      ],
      signal,
    )
    if (outcome === 'done') return 'committed'
    if (outcome.failed.includes(0)) return 'chunk_changed'
    if (outcome.failed.includes(1)) return 'final'
    throw outcome.cause
  }

  /**
   * Every chunk is done: the batch is `done` (or `canceled`, when a cancel was asked), with its
   * audit entry. False when it already was (another delivery finished it first).
   */
  async finish(
    batchId: string,
    status: 'done' | 'canceled',
    now: number,
    audit: AuditEntry,
    { signal }: CallOptions = {},
  ): Promise<boolean> {
    const outcome = await transactOnce(
      this.client,
      [
        {
          Update: {
            TableName: this.tables.grants,
            Key: { grantId: batchKey(batchId) },
            UpdateExpression: 'SET #status = :final, finishedAt = :at, updatedAt = :at',
            ConditionExpression: '#status IN (:queued, :running) AND chunksDone >= chunks',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':final': status,
              ':at': new Date(now).toISOString(),
              ':queued': 'queued',
              ':running': 'running',
            },
          },
        },
        auditPut(this.tables.audit, audit),
      ],
      signal,
    )
    if (outcome === 'done') return true
    if (outcome.failed.includes(0)) return false
    throw outcome.cause
  }

  /** The committer was told; false if someone already had marked it. */
  async markNotified(batchId: string, now: number, { signal }: CallOptions = {}): Promise<boolean> {
    const written = await conditional(
      this.client.send(
        new UpdateCommand({
          TableName: this.tables.grants,
          Key: { grantId: batchKey(batchId) },
          UpdateExpression: 'SET notifiedAt = :at',
          ConditionExpression: 'itemType = :batch AND attribute_not_exists(notifiedAt)',
          ExpressionAttributeValues: {
            ':at': new Date(now).toISOString(),
            ':batch': 'grantBatch',
          },
        }),
        { abortSignal: signal },
      ),
    )
    return !!written
  }

  /** A chunk's message failed its last allowed delivery: it goes to the dead letters, the batch shows it. */
  async markDeadLettered(batchId: string, chunk: number, { signal }: CallOptions = {}) {
    await conditional(
      this.client.send(
        new UpdateCommand({
          TableName: this.tables.grants,
          Key: { grantId: batchKey(batchId) },
          UpdateExpression: 'ADD deadLettered :index',
          ConditionExpression: 'itemType = :batch',
          ExpressionAttributeValues: { ':index': new Set([chunk]), ':batch': 'grantBatch' },
        }),
        { abortSignal: signal },
      ),
    )
  }
}
