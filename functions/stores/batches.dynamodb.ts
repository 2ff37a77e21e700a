import { TransactionCanceledException } from '@aws-sdk/client-dynamodb'
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb'
import {
  type BatchChunk,
  type BatchRecord,
  batchKey,
  chunkKey,
  type RowResult,
  type StoredRow,
} from '../domain/batch'
import type { AuditEntry } from '../domain/people'
import { sleep } from '../runtime/sleep'
import { auditPut } from './audit'
import type { CallOptions } from './grants.store'
import { throttled } from './store-errors'

/**
 * The batches' items (domain/batch.ts): in the grants table, with the audit table for the entries
 * of a commit and of a finished batch. Outcomes are returned; only DynamoDB's own failures
 * (unavailable, throttled, aborted) are thrown.
 */
export type BatchTables = { grants: string; audit: string }

const THROTTLED = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
])

const cancellation = (error: unknown) => {
  if (!(error instanceof TransactionCanceledException)) return undefined
  const reasons = error.CancellationReasons ?? []
  if (reasons.some((r) => r.Code !== undefined && THROTTLED.has(r.Code))) {
    throw throttled('a batch transaction', error)
  }
  return reasons.map((r) => r.Code)
}

const isConditionFailure = (error: unknown) =>
  (error as Error).name === 'ConditionalCheckFailedException'

export type ProgressCommit =
  | { kind: 'committed' }
  /** The chunk's results are not what the worker read (its own lost write, or another worker). */
  | { kind: 'chunk_changed' }
  /** Another worker holds the batch now. */
  | { kind: 'lease_lost' }

export class DynamoDbBatchStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: BatchTables,
  ) {}

  async getBatch(batchId: string, { signal }: CallOptions = {}) {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tables.grants,
        Key: { grantId: batchKey(batchId) },
        ConsistentRead: true,
      }),
      { abortSignal: signal },
    )
    return Item?.itemType === 'grantBatch' ? (Item as BatchRecord) : undefined
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
    for (let i = 0; i < items.length; i += 25) {
      let pending: Record<string, unknown>[] = items
        .slice(i, i + 25)
        .map((item) => ({ PutRequest: { Item: item } }))
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt === 8) {
          throw throttled('BatchWriteItem left items unprocessed')
        }
        if (attempt > 0) await sleep(25 * 2 ** attempt, signal)
        const result = await this.client.send(
          new BatchWriteCommand({
            RequestItems: { [this.tables.grants]: pending as never },
          }),
          { abortSignal: signal },
        )
        pending = (result.UnprocessedItems?.[this.tables.grants] ?? []) as Record<string, unknown>[]
      }
    }
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
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tables.grants,
                Item: batch,
                ConditionExpression: 'attribute_not_exists(grantId)',
              },
            },
            auditPut(this.tables.audit, audit),
          ],
        }),
        { abortSignal: signal },
      )
      return { kind: 'created' }
    } catch (error) {
      const codes = cancellation(error)
      if (codes?.[0] !== 'ConditionalCheckFailed') throw error
      const existing = await this.getBatch(batch.batchId, { signal })
      if (!existing) throw throttled('a batch cancelled, then not found', error)
      return { kind: 'exists', existing }
    }
  }

  async getChunk(batch: BatchRecord, index: number, { signal }: CallOptions = {}) {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tables.grants,
        Key: { grantId: chunkKey(batch.batchId, batch.chunkPrefix, index) },
        ConsistentRead: true,
      }),
      { abortSignal: signal },
    )
    if (!Item) throw new Error(`Chunk ${index} of batch ${batch.batchId} is missing`)
    return Item as BatchChunk
  }

  /** Chunks `from` .. `to - 1`, in order, strongly consistent. */
  async getChunks(batch: BatchRecord, from: number, to: number, { signal }: CallOptions = {}) {
    const keys = []
    for (let i = from; i < to; i++)
      keys.push({ grantId: chunkKey(batch.batchId, batch.chunkPrefix, i) })
    const found: BatchChunk[] = []
    let pending: Record<string, unknown>[] = keys
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === 8) {
        throw throttled('BatchGetItem left keys unprocessed')
      }
      if (attempt > 0) await sleep(25 * 2 ** attempt, signal)
      const result = await this.client.send(
        new BatchGetCommand({
          RequestItems: { [this.tables.grants]: { Keys: pending, ConsistentRead: true } },
        }),
        { abortSignal: signal },
      )
      found.push(...((result.Responses?.[this.tables.grants] ?? []) as BatchChunk[]))
      pending = (result.UnprocessedKeys?.[this.tables.grants]?.Keys ?? []) as Record<
        string,
        unknown
      >[]
    }
    return found.sort((a, b) => a.index - b.index)
  }

  /**
   * The worker takes the batch until `until`: when nobody holds it (or the holder's time ran out),
   * or it is this very worker (its own earlier attempt, whose answer was lost). The batch as it now
   * is, or undefined when it is done or held by another worker.
   */
  async claim(
    batchId: string,
    token: string,
    until: number,
    now: number,
    { signal }: CallOptions = {},
  ): Promise<BatchRecord | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tables.grants,
          Key: { grantId: batchKey(batchId) },
          UpdateExpression:
            'SET leaseToken = :token, leaseUntil = :until, #status = :running, updatedAt = :at',
          ConditionExpression:
            'itemType = :batch AND #status <> :done AND (leaseUntil <= :now OR leaseToken = :token)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':token': token,
            ':until': until,
            ':running': 'running',
            ':done': 'done',
            ':batch': 'grantBatch',
            ':now': now,
            ':at': new Date(now).toISOString(),
          },
          ReturnValues: 'ALL_NEW',
        }),
        { abortSignal: signal },
      )
      return Attributes as BatchRecord
    } catch (error) {
      if (isConditionFailure(error)) return undefined
      throw error
    }
  }

  /**
   * The results of a chunk so far and the batch's counters, in one transaction: the counters can
   * never disagree with the rows. Only while the worker holds the batch, and only from the results
   * it read, so nothing is ever counted twice.
   */
  async commitProgress(
    input: {
      batch: BatchRecord
      index: number
      before: number
      results: RowResult[]
      granted: number
      failed: number
      nextChunk: number
      token: string
      now: number
      /** The lease, renewed. */
      until: number
    },
    { signal }: CallOptions = {},
  ): Promise<ProgressCommit> {
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tables.grants,
                Key: {
                  grantId: chunkKey(input.batch.batchId, input.batch.chunkPrefix, input.index),
                },
                UpdateExpression: 'SET results = :results',
                ConditionExpression: 'size(results) = :before',
                ExpressionAttributeValues: { ':results': input.results, ':before': input.before },
              },
            },
            {
              Update: {
                TableName: this.tables.grants,
                Key: { grantId: batchKey(input.batch.batchId) },
                UpdateExpression:
                  'SET granted = granted + :granted, failed = failed + :failed, nextChunk = :next, updatedAt = :at, leaseUntil = :until',
                ConditionExpression: 'leaseToken = :token',
                ExpressionAttributeValues: {
                  ':granted': input.granted,
                  ':failed': input.failed,
                  ':next': input.nextChunk,
                  ':at': new Date(input.now).toISOString(),
                  ':token': input.token,
                  ':until': input.until,
                },
              },
            },
          ],
        }),
        { abortSignal: signal },
      )
      return { kind: 'committed' }
    } catch (error) {
      const codes = cancellation(error)
      if (codes?.[1] === 'ConditionalCheckFailed') return { kind: 'lease_lost' }
      if (codes?.[0] === 'ConditionalCheckFailed') return { kind: 'chunk_changed' }
      throw error
    }
  }

  /** Gives the batch up (out of time): the next worker may take it at once. */
  async release(batchId: string, token: string, { signal }: CallOptions = {}) {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.grants,
          Key: { grantId: batchKey(batchId) },
          UpdateExpression: 'SET leaseUntil = :zero',
          ConditionExpression: 'leaseToken = :token',
          ExpressionAttributeValues: { ':zero': 0, ':token': token },
        }),
        { abortSignal: signal },
      )
    } catch (error) {
      if (!isConditionFailure(error)) throw error
    }
  }

  /** Every row has its result: the batch is done, with its audit entry. False if it already was. */
  async finish(
    batchId: string,
    token: string,
    now: number,
    audit: AuditEntry,
    { signal }: CallOptions = {},
  ): Promise<boolean> {
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tables.grants,
                Key: { grantId: batchKey(batchId) },
                UpdateExpression:
                  'SET #status = :done, finishedAt = :at, updatedAt = :at, leaseUntil = :zero',
                ConditionExpression: '#status <> :done AND leaseToken = :token',
                ExpressionAttributeNames: { '#status': 'status' },
                ExpressionAttributeValues: {
                  ':done': 'done',
                  ':at': new Date(now).toISOString(),
                  ':zero': 0,
                  ':token': token,
                },
              },
            },
            auditPut(this.tables.audit, audit),
          ],
        }),
        { abortSignal: signal },
      )
      return true
    } catch (error) {
      const codes = cancellation(error)
      if (codes?.[0] === 'ConditionalCheckFailed') return false
      throw error
    }
  }
}
