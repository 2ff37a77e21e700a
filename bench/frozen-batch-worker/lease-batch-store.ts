/**
 * FROZEN for the bench (bench/benchmarks/batch-local.ts): the lease methods of the batch store as
 * they were at commit 264cf9e (functions/stores/batches.dynamodb.ts: claim, commitProgress,
 * release, and finish with the lease), before issue 20 removed them.
 *
 * Why the store is frozen too: the worker of 264cf9e holds a batch by a lease (one run at a time,
 * rows in order, `nextChunk`), and today's store has no lease any more. Everything else the two
 * workers share is today's: this store wraps the current DynamoDbBatchStore, so both sides of the
 * bench read the batch and its chunks, and create them, with the same code (getBatch, getChunk,
 * putChunks, createBatch), and grant every row through the same use case (makeGrantTokens).
 * `prepareLease` writes the two fields the commit of 264cf9e gave a new batch (nextChunk 0,
 * leaseUntil 0), so a batch created by today's commit can be worked by the frozen worker.
 * Do not update: it is the baseline.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb'
import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb'
import { type BatchRecord, batchKey, chunkKey, type RowResult } from '../../functions/domain/batch'
import type { AuditEntry } from '../../functions/domain/people'
import { auditPut } from '../../functions/stores/audit'
import { type BatchTables, DynamoDbBatchStore } from '../../functions/stores/batches.dynamodb'
import type { CallOptions } from '../../functions/stores/grants.store'
import { throttled } from '../../functions/stores/store-errors'

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

/** A batch as the frozen worker reads it: with the lease's fields of 264cf9e. */
export type LeasedBatch = BatchRecord & { nextChunk: number; leaseUntil: number }

export class LeaseBatchStore {
  /** Today's store: what both sides of the bench share. */
  readonly current: DynamoDbBatchStore

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: BatchTables,
  ) {
    this.current = new DynamoDbBatchStore(client, tables)
  }

  getBatch(batchId: string, options: CallOptions = {}) {
    return this.current.getBatch(batchId, options) as Promise<LeasedBatch | undefined>
  }

  getChunk(batch: BatchRecord, index: number, options: CallOptions = {}) {
    return this.current.getChunk(batch, index, options)
  }

  /** What the commit of 264cf9e wrote on a new batch besides today's fields: nobody holds it, chunk 0 next. */
  async prepareLease(batchId: string) {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tables.grants,
        Key: { grantId: batchKey(batchId) },
        UpdateExpression: 'SET nextChunk = :zero, leaseUntil = :zero',
        ConditionExpression: 'itemType = :batch',
        ExpressionAttributeValues: { ':zero': 0, ':batch': 'grantBatch' },
      }),
    )
  }

  // ---- From here: 264cf9e's functions/stores/batches.dynamodb.ts, unchanged. ----

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
  ): Promise<LeasedBatch | undefined> {
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
      return Attributes as LeasedBatch
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
