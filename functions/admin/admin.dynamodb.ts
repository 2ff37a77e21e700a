import { TransactionCanceledException } from '@aws-sdk/client-dynamodb'
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb'
import type { Mode } from '../shared/api-key'
import { INDEX, KEY_ID_POINTER } from '../shared/table-schema'
import type {
  ApiKeyRecord,
  GrantRecord,
  ProgramRecord,
  ProgramStatus,
} from '../stores/grants.store'
import {
  AdminError,
  type AdminStore,
  type AdminTableNames,
  type IssuerRecord,
  type Page,
  WriteConflictError,
} from './admin.store'

type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>

const reasonsOf = (error: unknown) =>
  error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : []

const isConditionFailure = (error: unknown) =>
  (error as Error).name === 'ConditionalCheckFailedException' ||
  reasonsOf(error).some((r) => r.Code === 'ConditionalCheckFailed')

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

/** The key of the pointer item that finds a key by its id (see KEY_ID_POINTER). */
export const keyIdPointer = (keyId: string) => `${KEY_ID_POINTER.prefix}${keyId}`

export class DynamoDbAdminStore implements AdminStore {
  private readonly retry: ConflictRetry

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: AdminTableNames,
    options: { conflictRetry?: ConflictRetry } = {},
  ) {
    this.retry = options.conflictRetry ?? DEFAULT_CONFLICT_RETRY
  }

  /** Sends a write again while DynamoDB refuses it for a transaction conflict, up to the bound. */
  private async write<T>(send: () => Promise<T>): Promise<T> {
    const started = Date.now()
    for (let attempt = 1; ; attempt++) {
      try {
        return await send()
      } catch (error) {
        if (!isTransactionConflict(error)) throw error
        if (attempt >= this.retry.attempts) {
          throw new WriteConflictError(attempt, Date.now() - started)
        }
        const delay = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1))
        await new Promise((resolve) => setTimeout(resolve, delay / 2 + (Math.random() * delay) / 2))
      }
    }
  }

  async createIssuer(issuer: IssuerRecord): Promise<void> {
    await this.write(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tables.issuers,
          Item: issuer,
          ConditionExpression: 'attribute_not_exists(issuerId)',
        }),
      ),
    )
  }

  listIssuers(): Promise<IssuerRecord[]> {
    return this.scanAll<IssuerRecord>({ TableName: this.tables.issuers, ConsistentRead: true })
  }

  /**
   * The issuer check and the writes in one transaction, so no program or key is ever orphaned.
   * `items` are put on condition that they do not exist yet.
   */
  private async putForIssuer(
    issuerId: string,
    items: { table: string; item: object; key: string }[],
  ) {
    try {
      await this.write(() =>
        this.client.send(
          new TransactWriteCommand({
            TransactItems: [
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
          }),
        ),
      )
    } catch (error) {
      if (reasonsOf(error)[0]?.Code === 'ConditionalCheckFailed') {
        throw new AdminError(`No issuer ${issuerId}.`)
      }
      throw error
    }
  }

  createProgram(program: ProgramRecord): Promise<void> {
    return this.putForIssuer(program.issuerId, [
      { table: this.tables.programs, item: program, key: 'programId' },
    ])
  }

  async getProgram(programId: string): Promise<ProgramRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tables.programs, Key: { programId }, ConsistentRead: true }),
    )
    return Item as ProgramRecord | undefined
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
    const programs =
      filter.issuerId === undefined
        ? await this.scanAll<ProgramRecord>({
            TableName: this.tables.programs,
            ConsistentRead: true,
            ...modeFilter,
            ...(filter.mode === undefined ? {} : { ExpressionAttributeValues: byMode }),
          })
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
    return programs.sort((a, b) => a.createdAt.localeCompare(b.createdAt))
  }

  async setProgramStatus(programId: string, to: ProgramStatus, from: ProgramStatus[]) {
    const values = Object.fromEntries(from.map((status, i) => [`:from${i}`, status]))
    try {
      await this.write(() =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tables.programs,
            Key: { programId },
            UpdateExpression: 'SET #status = :to',
            ConditionExpression: `attribute_exists(programId) AND #status IN (${Object.keys(values).join(', ')})`,
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':to': to, ...values },
          }),
        ),
      )
      return true
    } catch (error) {
      if (isConditionFailure(error)) return false
      throw error
    }
  }

  /** The pointer that finds a key by id (see KEY_ID_POINTER), put in the key's transaction. */
  private pointerPut(key: ApiKeyRecord) {
    return {
      table: this.tables.apiKeys,
      item: { keyHash: keyIdPointer(key.keyId), [KEY_ID_POINTER.target]: key.keyHash },
      key: 'keyHash',
    }
  }

  createApiKey(key: ApiKeyRecord): Promise<void> {
    return this.putForIssuer(key.issuerId, [
      { table: this.tables.apiKeys, item: key, key: 'keyHash' },
      this.pointerPut(key),
    ])
  }

  /**
   * The pointer, then the key, both strongly consistent: found even a moment after it was
   * created or rolled, which the `byKeyId` index (eventually consistent) does not promise.
   */
  async findApiKeyById(keyId: string): Promise<ApiKeyRecord | undefined> {
    const { Item: pointer } = await this.client.send(
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
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tables.apiKeys, Key: { keyHash }, ConsistentRead: true }),
    )
    return Item as ApiKeyRecord | undefined
  }

  async listApiKeys(filter: { issuerId?: string }): Promise<ApiKeyRecord[]> {
    const keys =
      filter.issuerId === undefined
        ? await this.scanAll<ApiKeyRecord>({
            TableName: this.tables.apiKeys,
            ConsistentRead: true,
            // Pointer items are not keys. (They are in neither index: they have no keyId,
            // issuerId or createdAt.)
            FilterExpression: 'NOT begins_with(keyHash, :pointer)',
            ExpressionAttributeValues: { ':pointer': KEY_ID_POINTER.prefix },
          })
        : await this.queryAll<ApiKeyRecord>({
            TableName: this.tables.apiKeys,
            IndexName: INDEX.keysByIssuer,
            KeyConditionExpression: 'issuerId = :issuer',
            ExpressionAttributeValues: { ':issuer': filter.issuerId },
          })
    return keys.sort((a, b) => a.createdAt.localeCompare(b.createdAt))
  }

  async revokeApiKey(keyHash: string): Promise<void> {
    await this.write(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tables.apiKeys,
          Key: { keyHash },
          UpdateExpression: 'SET #status = :revoked',
          ConditionExpression: 'attribute_exists(keyHash)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':revoked': 'revoked' },
        }),
      ),
    )
  }

  async rollApiKey({
    old,
    next,
    oldExpiresAt,
    now,
  }: {
    old: ApiKeyRecord
    next: ApiKeyRecord
    oldExpiresAt: number
    now: number
  }): Promise<boolean> {
    const pointer = this.pointerPut(next)
    const items: TransactItems = [
      {
        Update: {
          TableName: this.tables.apiKeys,
          Key: { keyHash: old.keyHash },
          UpdateExpression: 'SET #expires = :expires, rolledTo = :next',
          ConditionExpression:
            '#status = :active AND (attribute_not_exists(#expires) OR #expires > :now)',
          ExpressionAttributeNames: { '#status': 'status', '#expires': 'expiresAt' },
          ExpressionAttributeValues: {
            ':expires': oldExpiresAt,
            ':next': next.keyId,
            ':active': 'active',
            ':now': now,
          },
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
    ]
    try {
      await this.write(() => this.client.send(new TransactWriteCommand({ TransactItems: items })))
      return true
    } catch (error) {
      if (isConditionFailure(error)) return false
      throw error
    }
  }

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
    const items: GrantRecord[] = []
    let start = cursor === undefined ? undefined : decodeCursor(cursor)
    // A filter applies after DynamoDB's page limit, so keep reading until the page is full.
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tables.grants,
          IndexName: INDEX.grantsByProgram,
          KeyConditionExpression: 'programId = :program',
          ...(recipientEmail === undefined
            ? { ExpressionAttributeValues: { ':program': programId } }
            : {
                FilterExpression: 'recipient.email = :email',
                ExpressionAttributeValues: { ':program': programId, ':email': recipientEmail },
              }),
          ScanIndexForward: false,
          Limit: limit - items.length,
          ExclusiveStartKey: start,
        }),
      )
      items.push(...((page.Items ?? []) as GrantRecord[]))
      start = page.LastEvaluatedKey
    } while (start !== undefined && items.length < limit)
    return start === undefined ? { items } : { items, nextCursor: encodeCursor(start) }
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
      const result = await this.client.send(page(start) as ScanCommand)
      items.push(...((result.Items ?? []) as T[]))
      start = result.LastEvaluatedKey
    } while (start)
    return items
  }

  /** Strongly consistent, 100 keys a call; asks again for what DynamoDB left unprocessed. */
  private async batchGet<T>(table: string, keys: Record<string, unknown>[]): Promise<T[]> {
    const items: T[] = []
    for (let i = 0; i < keys.length; i += 100) {
      let pending: Record<string, unknown>[] = keys.slice(i, i + 100)
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt === 8) {
          throw new AdminError('DynamoDB kept some reads unprocessed (throttled); try again.')
        }
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt))
        const result = await this.client.send(
          new BatchGetCommand({
            RequestItems: { [table]: { Keys: pending, ConsistentRead: true } },
          }),
        )
        items.push(...((result.Responses?.[table] ?? []) as T[]))
        pending = (result.UnprocessedKeys?.[table]?.Keys ?? []) as Record<string, unknown>[]
      }
    }
    return items
  }
}

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

const encodeCursor = (key: Record<string, unknown>) =>
  Buffer.from(JSON.stringify(key), 'utf8').toString('base64url')

const decodeCursor = (cursor: string): Record<string, unknown> => {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    if (typeof key === 'object' && key !== null && !Array.isArray(key)) return key
  } catch {}
  throw new AdminError('The --cursor value is not one this command printed.')
}
