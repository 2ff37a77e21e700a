import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb'
import {
  type BatchCursor,
  type BatchRecord,
  batchKey,
  batchListSlot,
  FINAL_BATCH_STATUSES,
} from '../domain/batch'
import type { GrantSender } from '../domain/grant'
import type { AuditEntry } from '../domain/people'
import type { ProgramRecord } from '../domain/program'
import { INDEX } from '../table-schema'
import { auditPut } from './audit'
import type { BatchListing, BatchOfProgram, BatchPage, CancelOutcome } from './batches.store'
import type { CallOptions } from './grants.store'
import { getItem } from './kernel/get'
import { transact } from './kernel/transact'
import { throttled } from './store-errors'

/**
 * A program's batches for the management API: the listing (newest first, from the grants table's
 * `byProgramSlot` index, where a batch sits under `batchListSlot(programId)`, a key no grant has)
 * and a cancel asked by a member. Outcomes are returned, as members.store.ts's are; only DynamoDB's
 * own failures (unavailable, throttled, aborted, a transaction conflict) are thrown.
 */
export type BatchListingTables = { grants: string; audit: string; programs: string }

// The cursor is domain/batch.ts's; a route that imported it from here still finds it.
export { decodeBatchCursor, encodeBatchCursor } from '../domain/batch'

const ownedBatch = (
  item: Record<string, unknown> | undefined,
  issuerId: string,
  programId: string,
): BatchRecord | undefined =>
  item?.itemType === 'grantBatch' && item.issuerId === issuerId && item.program === programId
    ? (item as BatchRecord)
    : undefined

export class DynamoDbBatchListing implements BatchListing {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: BatchListingTables,
  ) {}

  /** The program's head (strongly consistent): whose it is. Its shards are not read. */
  async findProgram(programId: string, options: CallOptions = {}) {
    return (await getItem(this.client, this.tables.programs, { programId }, options)) as
      | ProgramRecord
      | undefined
  }

  /** One batch of this issuer and program, strongly consistent. */
  async getBatch(input: BatchOfProgram, options: CallOptions = {}) {
    const key = { grantId: batchKey(input.batchId) }
    const item = await getItem(this.client, this.tables.grants, key, options)
    return ownedBatch(item, input.issuerId, input.programId)
  }

  /**
   * The program's batches, newest first (`createdAt`, then DynamoDB's own order of the index's
   * keys), `limit` at most, after `cursor`. One Query of one index partition; the index projects
   * every attribute, so the batches come whole (eventually consistent, as any index read: a batch
   * committed a moment ago may show a moment later, its counters a moment behind its own page).
   * Batches written before they carried `programSlot` are not in the index, so not listed.
   */
  async listBatches(
    input: { issuerId: string; programId: string; limit: number; cursor?: BatchCursor | undefined },
    { signal }: CallOptions = {},
  ): Promise<BatchPage> {
    const { issuerId, programId, limit, cursor } = input
    const slot = batchListSlot(programId)
    const batches: BatchRecord[] = []
    let start: Record<string, unknown> | undefined =
      cursor === undefined
        ? undefined
        : {
            programSlot: slot,
            createdAt: cursor.createdAt,
            grantId: batchKey(cursor.batchId),
          }
    // One more than the page, so a full last page does not promise a next one that is empty.
    do {
      const page: {
        Items?: Record<string, unknown>[]
        LastEvaluatedKey?: Record<string, unknown>
      } = await this.client.send(
        new QueryCommand({
          TableName: this.tables.grants,
          IndexName: INDEX.grantsByProgramSlot,
          KeyConditionExpression: 'programSlot = :slot',
          ExpressionAttributeValues: { ':slot': slot },
          ScanIndexForward: false,
          Limit: limit + 1 - batches.length,
          ExclusiveStartKey: start,
        }),
        { abortSignal: signal },
      )
      for (const item of page.Items ?? []) {
        const batch = ownedBatch(item, issuerId, programId)
        if (batch) batches.push(batch)
      }
      start = page.LastEvaluatedKey
    } while (start !== undefined && batches.length <= limit)
    const shown = batches.slice(0, limit)
    const last = shown.at(-1)
    return {
      batches: shown,
      nextCursor:
        batches.length > limit && last !== undefined
          ? { createdAt: last.createdAt ?? last.submittedAt, batchId: last.batchId }
          : undefined,
    }
  }

  /**
   * Asks the batch to stop: `cancelRequestedAt`, `canceledBy` and `updatedAt` with the audit entry,
   * in one transaction, on condition that the batch is this issuer's and program's, not finished,
   * and not asked to stop already. The worker looks for it about every second and starts no row
   * after it sees it; it finishes the batch `canceled` (or `done`, if every row was already tried).
   */
  async requestCancel(
    input: BatchOfProgram & { actor: GrantSender; now: number; audit: AuditEntry },
    { signal }: CallOptions = {},
  ): Promise<CancelOutcome> {
    const at = new Date(input.now).toISOString()
    const outcome = await transact(
      this.client,
      [
        {
          Update: {
            TableName: this.tables.grants,
            Key: { grantId: batchKey(input.batchId) },
            UpdateExpression: 'SET cancelRequestedAt = :at, canceledBy = :actor, updatedAt = :at',
            ConditionExpression:
              'itemType = :batch AND issuerId = :issuer AND #program = :program AND #status IN (:queued, :running) AND attribute_not_exists(cancelRequestedAt)',
            ExpressionAttributeNames: { '#status': 'status', '#program': 'program' },
            ExpressionAttributeValues: {
              ':at': at,
              ':actor': { sub: input.actor.sub, email: input.actor.email },
              ':batch': 'grantBatch',
              ':issuer': input.issuerId,
              ':program': input.programId,
              ':queued': 'queued',
              ':running': 'running',
            },
          },
        },
        auditPut(this.tables.audit, input.audit),
      ],
      { signal },
    )
    if (outcome.kind === 'unavailable' && outcome.reason === 'throttled') {
      throw throttled('a batch cancel', outcome.cause)
    }
    // Only the batch's own condition is an outcome; anything else (a conflict, an audit id
    // clash) is DynamoDB's to report.
    if (outcome.kind !== 'done' && !(outcome.kind === 'failed' && outcome.failed.includes(0))) {
      throw outcome.cause
    }
    if (outcome.kind === 'failed') {
      const batch = await this.getBatch(input, { signal })
      if (!batch) return { outcome: 'missing' }
      if (FINAL_BATCH_STATUSES.includes(batch.status)) return { outcome: 'final', batch }
      if (batch.cancelRequestedAt !== undefined) return { outcome: 'already', batch }
      // The condition failed, yet the batch reads as cancelable: it cannot be (items change only
      // forward), unless it changed back under us; let the caller retry.
      throw throttled('a batch cancel whose condition failed on a cancelable batch', outcome.cause)
    }
    const batch = await this.getBatch(input, { signal })
    if (!batch) throw new Error(`Batch ${input.batchId} canceled, then not found`)
    return { outcome: 'done', batch }
  }
}
