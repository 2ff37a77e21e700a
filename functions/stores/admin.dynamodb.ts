import { type CancellationReason, TransactionCanceledException } from '@aws-sdk/client-dynamodb'
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb'
import { unmarshall } from '@aws-sdk/util-dynamodb'
import type { Mode } from '../domain/api-key'
import { grantListSlot } from '../domain/grant-slots'
import type { AuditEntry } from '../domain/people'
import {
  isShardKey,
  newShards,
  type ShardRecord,
  shardKeys,
  sumShards,
} from '../domain/program-shards'
import { sleep } from '../runtime/sleep'
import {
  AdminError,
  type AdminKeyRecord,
  type AdminStore,
  type AdminTableNames,
  type ChangeOptions,
  type IssuerRecord,
  type KeyRevocation,
  type KeyRoll,
  type Page,
  type ProgramChange,
  type SlotBackfill,
  StoreUnavailable,
  WriteConflictError,
} from './admin.store'
import { auditPut } from './audit'
import { GrantLister } from './grant-listing.dynamodb'
import {
  type ApiKeyRecord,
  decodeGrantCursor,
  type GrantRecord,
  type ProgramRecord,
  type ProgramStatus,
} from './grants.store'
import { type GrantListIndex, INDEX, KEY_ID_POINTER } from './table-schema'

type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>

const reasonsOf = (error: unknown) =>
  error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : []

/** Cancellation codes that mean "DynamoDB is busy", never "the condition failed". */
const THROTTLED = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
  'ThrottlingException',
])

/**
 * A write refused because a transaction in flight holds the item: a plain write answered
 * TransactionConflictException (which the SDK does not retry), or a transaction cancelled for a
 * conflict and nothing else. Either way nothing was written, so the write may be sent again.
 */
export const isTransactionConflict = (error: unknown) => {
  if ((error as Error).name === 'TransactionConflictException') return true
  const reasons = reasonsOf(error)
  return (
    reasons.some((r) => r.Code === 'TransactionConflict') &&
    !reasons.some((r) => r.Code === 'ConditionalCheckFailed')
  )
}

export type ConflictRetry = {
  /** Sends in all, the first included. */
  attempts: number
  /** Delay before the first retry; it doubles each time up to maxDelayMs. */
  baseDelayMs: number
  maxDelayMs: number
}

/**
 * Grants hold the program item (and condition-check the key item) in their transactions, so an
 * operator's write on a busy program or key meets conflicts. 8 attempts wait 1.8 to 3.6 s in all
 * (equal jitter: half of each delay fixed, half random, so concurrent writers spread out).
 */
export const DEFAULT_CONFLICT_RETRY: ConflictRetry = {
  attempts: 8,
  baseDelayMs: 50,
  maxDelayMs: 1_000,
}

/**
 * A management request has a deadline (7.5 s of a 10 s function): 4 attempts wait at most 350 ms,
 * then the route answers `409 request_conflict` with Retry-After and the person tries again.
 */
export const REQUEST_CONFLICT_RETRY: ConflictRetry = {
  attempts: 4,
  baseDelayMs: 50,
  maxDelayMs: 400,
}

/** The key of the pointer item that finds a key by its id (see KEY_ID_POINTER). */
export const keyIdPointer = (keyId: string) => `${KEY_ID_POINTER.prefix}${keyId}`

type Options = {
  conflictRetry?: ConflictRetry
  signal?: AbortSignal | undefined
  /**
   * The index `listGrants` reads: the stack's GRANT_LIST_INDEX_OUTPUT for `--stack` (`byProgram`
   * while the stage still has it), else `byProgramSlot`.
   */
  grantListIndex?: GrantListIndex
}

/**
 * UpdateItems in flight at once in `backfillGrantSlots`. Each also rewrites the grant's entry in
 * the legacy `byProgram` index (it projects every attribute), whose one partition per program
 * takes at most 1,000 writes a second beside the live grants: a few at a time stays well below.
 */
const BACKFILL_CONCURRENCY = 4

/** Every change is one TransactWriteItems: its items, then its audit entry (see ChangeOptions). */
export class DynamoDbAdminStore implements AdminStore {
  private readonly retry: ConflictRetry
  private readonly signal: AbortSignal | undefined
  private readonly grantLister: GrantLister

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: AdminTableNames,
    private readonly options: Options = {},
  ) {
    this.retry = options.conflictRetry ?? DEFAULT_CONFLICT_RETRY
    this.signal = options.signal
    this.grantLister = new GrantLister(
      tables.grants,
      options.grantListIndex ?? INDEX.grantsByProgramSlot,
    )
  }

  withSignal(signal: AbortSignal | undefined): DynamoDbAdminStore {
    return new DynamoDbAdminStore(this.client, this.tables, { ...this.options, signal })
  }

  /** Every call of this store: abandoned when its signal aborts (a request's deadline). */
  private send<T>(command: { readonly input: object }): Promise<T> {
    return this.client.send(command as never, { abortSignal: this.signal }) as Promise<T>
  }

  /**
   * Sends the change's items and its audit entry as one transaction, again while DynamoDB
   * refuses it for a transaction conflict, up to the bound. Returns undefined when it was
   * written, or the per-item reasons when a condition refused it (nothing written then).
   */
  private async transact(
    items: TransactItems,
    options: ChangeOptions | undefined,
  ): Promise<CancellationReason[] | undefined> {
    const all: TransactItems = [
      ...items,
      ...(options?.audit ? [auditPut(this.tables.audit, options.audit)] : []),
    ]
    const started = Date.now()
    for (let attempt = 1; ; attempt++) {
      try {
        await this.send(new TransactWriteCommand({ TransactItems: all }))
        return undefined
      } catch (error) {
        const reasons = reasonsOf(error)
        if (reasons.some((r) => r.Code !== undefined && THROTTLED.has(r.Code))) {
          throw new StoreUnavailable('a cancelled transaction')
        }
        if (!isTransactionConflict(error)) {
          if (reasons.some((r) => r.Code === 'ConditionalCheckFailed')) {
            // The audit entry's own condition (a unique id) never fails in practice; if it did,
            // the change was not made either, and saying so beats a wrong outcome.
            if (options?.audit && reasons[all.length - 1]?.Code === 'ConditionalCheckFailed') {
              throw new AdminError('The audit entry could not be written; nothing was changed.')
            }
            return reasons
          }
          throw error
        }
        if (attempt >= this.retry.attempts) {
          throw new WriteConflictError(attempt, Date.now() - started)
        }
        const delay = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1))
        await sleep(delay / 2 + (Math.random() * delay) / 2, this.signal)
      }
    }
  }

  async createIssuer(issuer: IssuerRecord, options?: ChangeOptions): Promise<void> {
    const refused = await this.transact(
      [
        {
          Put: {
            TableName: this.tables.issuers,
            Item: issuer,
            ConditionExpression: 'attribute_not_exists(issuerId)',
          },
        },
      ],
      options,
    )
    if (refused) throw new AdminError(`Issuer id ${issuer.issuerId} exists already.`)
  }

  listIssuers(): Promise<IssuerRecord[]> {
    return this.scanAll<IssuerRecord>({ TableName: this.tables.issuers, ConsistentRead: true })
  }

  async issuerNames(issuerIds: string[]): Promise<Map<string, string>> {
    const issuers = await this.batchGet<Pick<IssuerRecord, 'issuerId' | 'name'>>(
      this.tables.issuers,
      [...new Set(issuerIds)].map((issuerId) => ({ issuerId })),
      { ProjectionExpression: 'issuerId, #name', ExpressionAttributeNames: { '#name': 'name' } },
    )
    return new Map(issuers.map((i) => [i.issuerId, i.name]))
  }

  /**
   * The issuer check and the writes in one transaction, so no program or key is ever orphaned.
   * `items` are put on condition that they do not exist yet.
   */
  private async putForIssuer(
    issuerId: string,
    items: { table: string; item: object; key: string }[],
    options: ChangeOptions | undefined,
  ): Promise<'created' | 'issuer_not_found'> {
    const refused = await this.transact(
      [
        {
          ConditionCheck: {
            TableName: this.tables.issuers,
            Key: { issuerId },
            ConditionExpression: 'attribute_exists(issuerId)',
          },
        },
        ...items.map(({ table, item, key }) => ({
          Put: {
            TableName: table,
            Item: item,
            ConditionExpression: 'attribute_not_exists(#key)',
            ExpressionAttributeNames: { '#key': key },
          },
        })),
      ],
      options,
    )
    if (!refused) return 'created'
    if (refused[0]?.Code === 'ConditionalCheckFailed') return 'issuer_not_found'
    throw new AdminError('A new id clashed with an existing item; nothing was written. Try again.')
  }

  /** The head and, for a program with `shards`, its shards with the pool's slices. */
  createProgram(program: ProgramRecord, options?: ChangeOptions) {
    const shards =
      program.shards === undefined ? [] : newShards(program.programId, program.shards, program.pool)
    return this.putForIssuer(
      program.issuerId,
      [
        { table: this.tables.programs, item: program, key: 'programId' },
        ...shards.map((item) => ({ table: this.tables.programs, item, key: 'programId' })),
      ],
      options,
    )
  }

  async getProgram(programId: string): Promise<ProgramRecord | undefined> {
    if (isShardKey(programId)) return undefined
    const { Item } = await this.send<{ Item?: ProgramRecord }>(
      new GetCommand({ TableName: this.tables.programs, Key: { programId }, ConsistentRead: true }),
    )
    return Item === undefined ? undefined : (await this.withShards([Item]))[0]
  }

  /**
   * Programs with `issued` and `remaining` summed over their shards: one consistent BatchGetItem
   * per 100 shards. A program without shards is its own counter.
   */
  private async withShards(heads: ProgramRecord[]): Promise<ProgramRecord[]> {
    const keys = heads.flatMap((head) => shardKeys(head.programId, head.shards ?? 0))
    if (keys.length === 0) return heads
    const shards = await this.batchGet<ShardRecord>(this.tables.programs, keys)
    const byProgram = new Map<string, ShardRecord[]>()
    for (const shard of shards) {
      byProgram.set(shard.shardOf, [...(byProgram.get(shard.shardOf) ?? []), shard])
    }
    return heads.map((head) => {
      if (head.shards === undefined) return head
      const { remaining: _, ...rest } = head
      return sumShards(rest, byProgram.get(head.programId) ?? [])
    })
  }

  /**
   * By issuer: the index holds only the keys and the mode (never written by a grant), so it finds
   * the programs and filters the mode; their counters and status come from one consistent
   * BatchGetItem per 100 programs.
   */
  async listPrograms(filter: { issuerId?: string; mode?: Mode }): Promise<ProgramRecord[]> {
    const byMode = filter.mode === undefined ? {} : { ':mode': filter.mode }
    const modeFilter =
      filter.mode === undefined
        ? {}
        : { FilterExpression: '#mode = :mode', ExpressionAttributeNames: { '#mode': 'mode' } }
    const heads =
      filter.issuerId === undefined
        ? // A scan also meets the shard items (they have no issuer): keep the heads only.
          (
            await this.scanAll<ProgramRecord>({
              TableName: this.tables.programs,
              ConsistentRead: true,
              ...modeFilter,
              ...(filter.mode === undefined ? {} : { ExpressionAttributeValues: byMode }),
            })
          ).filter((item) => !isShardKey(item.programId))
        : await this.batchGet<ProgramRecord>(
            this.tables.programs,
            (
              await this.queryAll<Pick<ProgramRecord, 'programId'>>({
                TableName: this.tables.programs,
                IndexName: INDEX.programsByIssuer,
                KeyConditionExpression: 'issuerId = :issuer',
                ...modeFilter,
                ExpressionAttributeValues: { ':issuer': filter.issuerId, ...byMode },
              }).catch(missingIndex(this.tables.programs, INDEX.programsByIssuer))
            ).map((p) => ({ programId: p.programId })),
          )
    const programs = await this.withShards(heads)
    return programs.sort((a, b) => a.createdAt.localeCompare(b.createdAt))
  }

  async setProgramStatus(
    programId: string,
    to: ProgramStatus,
    from: ProgramStatus[],
    options?: ChangeOptions,
  ): Promise<ProgramChange> {
    const values = Object.fromEntries(from.map((status, i) => [`:from${i}`, status]))
    const issuer = options?.issuerId
    const refused = await this.transact(
      [
        {
          Update: {
            TableName: this.tables.programs,
            Key: { programId },
            UpdateExpression: 'SET #status = :to',
            ConditionExpression: `attribute_exists(programId) AND #status IN (${Object.keys(values).join(', ')})${issuer === undefined ? '' : ' AND issuerId = :issuer'}`,
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':to': to,
              ...values,
              ...(issuer === undefined ? {} : { ':issuer': issuer }),
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ],
      options,
    )
    if (!refused) return { kind: 'changed' }
    const current = itemOf<ProgramRecord>(refused[0])
    if (!current || (issuer !== undefined && current.issuerId !== issuer)) {
      return { kind: 'not_found' }
    }
    return { kind: 'refused', current }
  }

  /** The pointer that finds a key by id (see KEY_ID_POINTER), put in the key's transaction. */
  private pointerPut(key: ApiKeyRecord) {
    return {
      table: this.tables.apiKeys,
      item: { keyHash: keyIdPointer(key.keyId), [KEY_ID_POINTER.target]: key.keyHash },
      key: 'keyHash',
    }
  }

  createApiKey(key: AdminKeyRecord, options?: ChangeOptions) {
    return this.putForIssuer(
      key.issuerId,
      [{ table: this.tables.apiKeys, item: key, key: 'keyHash' }, this.pointerPut(key)],
      options,
    )
  }

  /**
   * The pointer, then the key, both strongly consistent: found even a moment after it was
   * created or rolled, which the `byKeyId` index (eventually consistent) does not promise.
   */
  async findApiKeyById(keyId: string): Promise<AdminKeyRecord | undefined> {
    const { Item: pointer } = await this.send<{ Item?: Record<string, unknown> }>(
      new GetCommand({
        TableName: this.tables.apiKeys,
        Key: { keyHash: keyIdPointer(keyId) },
        ConsistentRead: true,
      }),
    )
    let keyHash = pointer?.[KEY_ID_POINTER.target] as string | undefined
    if (keyHash === undefined) {
      // Keys created before pointers existed have none: the index finds them. They were written
      // long before this version ran, so the index has them; the read below is consistent.
      const [indexed] = await this.queryAll<ApiKeyRecord>({
        TableName: this.tables.apiKeys,
        IndexName: INDEX.keysById,
        KeyConditionExpression: 'keyId = :id',
        ExpressionAttributeValues: { ':id': keyId },
      })
      keyHash = indexed?.keyHash
    }
    if (keyHash === undefined) return undefined
    const { Item } = await this.send<{ Item?: AdminKeyRecord }>(
      new GetCommand({ TableName: this.tables.apiKeys, Key: { keyHash }, ConsistentRead: true }),
    )
    return Item
  }

  /**
   * By issuer: the `byIssuer` index finds the keys (a key created a moment ago may show a little
   * late), and one consistent BatchGetItem per 100 reads them, so a key revoked or rolled a moment
   * ago shows as it is now.
   */
  async listApiKeys(filter: { issuerId?: string; mode?: Mode }): Promise<AdminKeyRecord[]> {
    const keys =
      filter.issuerId === undefined
        ? await this.scanAll<AdminKeyRecord>({
            TableName: this.tables.apiKeys,
            ConsistentRead: true,
            // Pointer items are not keys. (They are in neither index: they have no keyId,
            // issuerId or createdAt.)
            FilterExpression: 'NOT begins_with(keyHash, :pointer)',
            ExpressionAttributeValues: { ':pointer': KEY_ID_POINTER.prefix },
          })
        : await this.batchGet<AdminKeyRecord>(
            this.tables.apiKeys,
            (
              await this.queryAll<Pick<ApiKeyRecord, 'keyHash'>>({
                TableName: this.tables.apiKeys,
                IndexName: INDEX.keysByIssuer,
                KeyConditionExpression: 'issuerId = :issuer',
                ExpressionAttributeValues: { ':issuer': filter.issuerId },
                ProjectionExpression: 'keyHash',
              })
            ).map((k) => ({ keyHash: k.keyHash })),
          )
    return keys
      .filter((k) => filter.mode === undefined || k.mode === filter.mode)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
  }

  async revokeApiKey(keyHash: string, options?: ChangeOptions): Promise<KeyRevocation> {
    const issuer = options?.issuerId
    const refused = await this.transact(
      [
        {
          Update: {
            TableName: this.tables.apiKeys,
            Key: { keyHash },
            UpdateExpression: 'SET #status = :revoked',
            // keyId: a key, not a pointer item. Already revoked: nothing to write, nor to audit.
            ConditionExpression: `attribute_exists(keyId) AND #status <> :revoked${issuer === undefined ? '' : ' AND issuerId = :issuer'}`,
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':revoked': 'revoked',
              ...(issuer === undefined ? {} : { ':issuer': issuer }),
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ],
      options,
    )
    if (!refused) return { kind: 'revoked' }
    const current = itemOf<AdminKeyRecord>(refused[0])
    if (!current?.keyId || (issuer !== undefined && current.issuerId !== issuer)) {
      return { kind: 'not_found' }
    }
    return { kind: 'already_revoked' }
  }

  async rollApiKey(
    {
      old,
      next,
      oldExpiresAt,
      now,
    }: { old: ApiKeyRecord; next: AdminKeyRecord; oldExpiresAt: number; now: number },
    options?: ChangeOptions,
  ): Promise<KeyRoll> {
    const issuer = options?.issuerId
    const pointer = this.pointerPut(next)
    const refused = await this.transact(
      [
        {
          Update: {
            TableName: this.tables.apiKeys,
            Key: { keyHash: old.keyHash },
            UpdateExpression: 'SET #expires = :expires, rolledTo = :next',
            ConditionExpression: `#status = :active AND (attribute_not_exists(#expires) OR #expires > :now)${issuer === undefined ? '' : ' AND issuerId = :issuer'}`,
            ExpressionAttributeNames: { '#status': 'status', '#expires': 'expiresAt' },
            ExpressionAttributeValues: {
              ':expires': oldExpiresAt,
              ':next': next.keyId,
              ':active': 'active',
              ':now': now,
              ...(issuer === undefined ? {} : { ':issuer': issuer }),
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        {
          Put: {
            TableName: this.tables.apiKeys,
            Item: next,
            ConditionExpression: 'attribute_not_exists(keyHash)',
          },
        },
        {
          Put: {
            TableName: pointer.table,
            Item: pointer.item,
            ConditionExpression: 'attribute_not_exists(keyHash)',
          },
        },
      ],
      options,
    )
    return refused
      ? { kind: 'refused', current: itemOf<AdminKeyRecord>(refused[0]) }
      : { kind: 'rolled' }
  }

  /**
   * Newest first, from every slot of the program (grant-listing.dynamodb.ts), reading until the
   * page is full (a recipient filter applies after DynamoDB's page limit). The cursor is the grant
   * API's: the last grant's createdAt and id.
   */
  async listGrants({
    programId,
    recipientEmail,
    limit,
    cursor,
  }: {
    programId: string
    recipientEmail?: string
    limit: number
    cursor?: string
  }): Promise<Page<GrantRecord>> {
    const after = cursor === undefined ? undefined : decodeGrantCursor(cursor)
    if (cursor !== undefined && after === undefined) {
      throw new AdminError('The --cursor value is not one this command printed.')
    }
    return this.grantLister
      .list((input) => this.send(new QueryCommand(input)), {
        programId,
        recipientEmail,
        limit,
        after,
        maxReads: Number.POSITIVE_INFINITY,
      })
      .catch(missingIndex(this.tables.grants, INDEX.grantsByProgramSlot))
  }

  /**
   * Gives every grant written before `byProgramSlot` existed its `programSlot`, so that index
   * lists it: a consistent Scan of the grants table for items with a `programId` and no
   * `programSlot` (batch items, `batch#...`, have no `programId`), then one conditional UpdateItem
   * each, a few at a time. Idempotent: an item that has a slot (from the grant path since this
   * release, or from an earlier run) is left alone, and one deleted meanwhile is not made again.
   */
  async backfillGrantSlots(): Promise<SlotBackfill> {
    const done: SlotBackfill = { scanned: 0, updated: 0, alreadySet: 0 }
    let start: Record<string, unknown> | undefined
    do {
      const page = await this.send<{
        Items?: Pick<GrantRecord, 'grantId' | 'programId'>[]
        LastEvaluatedKey?: Record<string, unknown>
        ScannedCount?: number
      }>(
        new ScanCommand({
          TableName: this.tables.grants,
          ConsistentRead: true,
          FilterExpression: 'attribute_exists(#program) AND attribute_not_exists(#slot)',
          ProjectionExpression: '#grant, #program',
          ExpressionAttributeNames: {
            '#grant': 'grantId',
            '#program': 'programId',
            '#slot': 'programSlot',
          },
          ExclusiveStartKey: start,
        }),
      )
      done.scanned += page.ScannedCount ?? 0
      const found = page.Items ?? []
      for (let i = 0; i < found.length; i += BACKFILL_CONCURRENCY) {
        const outcomes = await Promise.all(
          found.slice(i, i + BACKFILL_CONCURRENCY).map((grant) => this.setGrantSlot(grant)),
        )
        for (const outcome of outcomes) done[outcome]++
      }
      start = page.LastEvaluatedKey
    } while (start)
    return done
  }

  /** One grant's slot, on condition that it still exists, has none, and is of that program. */
  private async setGrantSlot({
    grantId,
    programId,
  }: Pick<GrantRecord, 'grantId' | 'programId'>): Promise<'updated' | 'alreadySet'> {
    const started = Date.now()
    for (let attempt = 1; ; attempt++) {
      try {
        await this.send(
          new UpdateCommand({
            TableName: this.tables.grants,
            Key: { grantId },
            UpdateExpression: 'SET #slot = :slot',
            ConditionExpression:
              'attribute_exists(#grant) AND attribute_not_exists(#slot) AND #program = :program',
            ExpressionAttributeNames: {
              '#grant': 'grantId',
              '#slot': 'programSlot',
              '#program': 'programId',
            },
            ExpressionAttributeValues: {
              ':slot': grantListSlot(programId, grantId),
              ':program': programId,
            },
          }),
        )
        return 'updated'
      } catch (error) {
        if ((error as Error).name === 'ConditionalCheckFailedException') return 'alreadySet'
        // A replay of the grant's Idempotency-Key may hold the item in its transaction.
        if (!isTransactionConflict(error)) throw error
        if (attempt >= this.retry.attempts) {
          throw new WriteConflictError(
            attempt,
            Date.now() - started,
            `Setting the slot of ${grantId}`,
          )
        }
        const delay = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1))
        await sleep(delay / 2 + (Math.random() * delay) / 2, this.signal)
      }
    }
  }

  /**
   * Newest first. Asks for one entry more than the page, so `last` is set only when another page
   * exists (a page that ends exactly at the end of the log has no next cursor).
   */
  async listAudit({
    issuerId,
    limit,
    after,
  }: {
    issuerId: string
    limit: number
    after?: string
  }): Promise<{ items: AuditEntry[]; last?: string }> {
    const items: AuditEntry[] = []
    let start: Record<string, unknown> | undefined =
      after === undefined ? undefined : { issuerId, entryId: after }
    do {
      const page = await this.send<{
        Items?: AuditEntry[]
        LastEvaluatedKey?: Record<string, unknown>
      }>(
        new QueryCommand({
          TableName: this.tables.audit,
          KeyConditionExpression: 'issuerId = :issuer',
          ExpressionAttributeValues: { ':issuer': issuerId },
          ScanIndexForward: false,
          Limit: limit + 1 - items.length,
          ExclusiveStartKey: start,
        }),
      )
      items.push(...(page.Items ?? []))
      start = page.LastEvaluatedKey
    } while (start !== undefined && items.length <= limit)
    if (items.length <= limit) return { items }
    const shown = items.slice(0, limit)
    return { items: shown, last: (shown[shown.length - 1] as AuditEntry).entryId }
  }

  private scanAll<T>(input: ScanCommandInput): Promise<T[]> {
    return this.allPages<T>((start) => new ScanCommand({ ...input, ExclusiveStartKey: start }))
  }

  private queryAll<T>(input: QueryCommandInput): Promise<T[]> {
    return this.allPages<T>((start) => new QueryCommand({ ...input, ExclusiveStartKey: start }))
  }

  /** Follows LastEvaluatedKey to the end. */
  private async allPages<T>(
    page: (start: Record<string, unknown> | undefined) => ScanCommand | QueryCommand,
  ): Promise<T[]> {
    const items: T[] = []
    let start: Record<string, unknown> | undefined
    do {
      const result = await this.send<{ Items?: T[]; LastEvaluatedKey?: Record<string, unknown> }>(
        page(start),
      )
      items.push(...(result.Items ?? []))
      start = result.LastEvaluatedKey
    } while (start)
    return items
  }

  /** Strongly consistent, 100 keys a call; asks again for what DynamoDB left unprocessed. */
  private async batchGet<T>(
    table: string,
    keys: Record<string, unknown>[],
    projection: {
      ProjectionExpression?: string
      ExpressionAttributeNames?: Record<string, string>
    } = {},
  ): Promise<T[]> {
    // Chunks of 100 keys (BatchGetItem's most), up to 4 in flight: a listing of many programs
    // reads all their counter shards in a few round trips' time, not one after the other.
    const chunk = async (slice: Record<string, unknown>[]) => {
      const found: T[] = []
      let pending = slice
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt === 8) throw new StoreUnavailable('reads left unprocessed')
        if (attempt > 0) await sleep(25 * 2 ** attempt, this.signal)
        const result = await this.send<{
          Responses?: Record<string, T[]>
          UnprocessedKeys?: Record<string, { Keys?: Record<string, unknown>[] }>
        }>(
          new BatchGetCommand({
            RequestItems: { [table]: { Keys: pending, ConsistentRead: true, ...projection } },
          }),
        )
        found.push(...(result.Responses?.[table] ?? []))
        pending = result.UnprocessedKeys?.[table]?.Keys ?? []
      }
      return found
    }
    const slices: Record<string, unknown>[][] = []
    for (let i = 0; i < keys.length; i += 100) slices.push(keys.slice(i, i + 100))
    const items: T[] = []
    for (let i = 0; i < slices.length; i += 4) {
      for (const found of await Promise.all(slices.slice(i, i + 4).map(chunk))) items.push(...found)
    }
    return items
  }
}

/** The item a refused condition returned (ReturnValuesOnConditionCheckFailure: ALL_OLD). */
const itemOf = <T>(reason: CancellationReason | undefined): T | undefined =>
  reason?.Item ? (unmarshall(reason.Item) as T) : undefined

/** A stage deployed from an earlier release lacks the index: say what to do. */
const missingIndex = (table: string, index: string) => (error: unknown) => {
  const e = error as Error
  if (e.name === 'ValidationException' && /specified index|backfilling/i.test(e.message)) {
    throw new AdminError(
      `Table ${table} has no usable index ${index} (${e.message}): deploy this release to the stage first (npx cdk deploy), or wait until the index has been built.`,
    )
  }
  throw error
}
