import { TransactionCanceledException } from '@aws-sdk/client-dynamodb'
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb'
import type { Mode } from '../shared/api-key'
import { INDEX } from '../shared/table-schema'
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
} from './admin.store'

const isConditionFailure = (error: unknown) =>
  (error as Error).name === 'ConditionalCheckFailedException' ||
  (error instanceof TransactionCanceledException &&
    (error.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed'))

export class DynamoDbAdminStore implements AdminStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: AdminTableNames,
  ) {}

  async createIssuer(issuer: IssuerRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tables.issuers,
        Item: issuer,
        ConditionExpression: 'attribute_not_exists(issuerId)',
      }),
    )
  }

  listIssuers(): Promise<IssuerRecord[]> {
    return this.scanAll<IssuerRecord>({ TableName: this.tables.issuers })
  }

  /** The issuer check and the write in one transaction, so no program is ever orphaned. */
  private async putForIssuer(table: string, item: { issuerId: string }, key: string) {
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.tables.issuers,
                Key: { issuerId: item.issuerId },
                ConditionExpression: 'attribute_exists(issuerId)',
              },
            },
            {
              Put: {
                TableName: table,
                Item: item,
                ConditionExpression: 'attribute_not_exists(#key)',
                ExpressionAttributeNames: { '#key': key },
              },
            },
          ],
        }),
      )
    } catch (error) {
      if (isConditionFailure(error)) throw new AdminError(`No issuer ${item.issuerId}.`)
      throw error
    }
  }

  createProgram(program: ProgramRecord): Promise<void> {
    return this.putForIssuer(this.tables.programs, program, 'programId')
  }

  async getProgram(programId: string): Promise<ProgramRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tables.programs, Key: { programId }, ConsistentRead: true }),
    )
    return Item as ProgramRecord | undefined
  }

  async listPrograms(filter: { issuerId?: string; mode?: Mode }): Promise<ProgramRecord[]> {
    const programs =
      filter.issuerId === undefined
        ? await this.scanAll<ProgramRecord>({ TableName: this.tables.programs })
        : await this.queryAll<ProgramRecord>({
            TableName: this.tables.programs,
            IndexName: INDEX.programsByIssuer,
            KeyConditionExpression: 'issuerId = :issuer',
            ExpressionAttributeValues: { ':issuer': filter.issuerId },
          })
    return programs
      .filter((p) => filter.mode === undefined || p.mode === filter.mode)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
  }

  async setProgramStatus(programId: string, to: ProgramStatus, from: ProgramStatus[]) {
    const values = Object.fromEntries(from.map((status, i) => [`:from${i}`, status]))
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.programs,
          Key: { programId },
          UpdateExpression: 'SET #status = :to',
          ConditionExpression: `attribute_exists(programId) AND #status IN (${Object.keys(values).join(', ')})`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':to': to, ...values },
        }),
      )
      return true
    } catch (error) {
      if (isConditionFailure(error)) return false
      throw error
    }
  }

  createApiKey(key: ApiKeyRecord): Promise<void> {
    return this.putForIssuer(this.tables.apiKeys, key, 'keyHash')
  }

  async findApiKeyById(keyId: string): Promise<ApiKeyRecord | undefined> {
    const [key] = await this.queryAll<ApiKeyRecord>({
      TableName: this.tables.apiKeys,
      IndexName: INDEX.keysById,
      KeyConditionExpression: 'keyId = :id',
      ExpressionAttributeValues: { ':id': keyId },
    })
    return key
  }

  async listApiKeys(filter: { issuerId?: string }): Promise<ApiKeyRecord[]> {
    const keys =
      filter.issuerId === undefined
        ? await this.scanAll<ApiKeyRecord>({ TableName: this.tables.apiKeys })
        : await this.queryAll<ApiKeyRecord>({
            TableName: this.tables.apiKeys,
            IndexName: INDEX.keysByIssuer,
            KeyConditionExpression: 'issuerId = :issuer',
            ExpressionAttributeValues: { ':issuer': filter.issuerId },
          })
    return keys.sort((a, b) => a.createdAt.localeCompare(b.createdAt))
  }

  async revokeApiKey(keyHash: string): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tables.apiKeys,
        Key: { keyHash },
        UpdateExpression: 'SET #status = :revoked',
        ConditionExpression: 'attribute_exists(keyHash)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':revoked': 'revoked' },
      }),
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
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
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
          ],
        }),
      )
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
