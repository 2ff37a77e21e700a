import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { generateApiKey, hashApiKey, type Mode, maskApiKey } from '../shared/api-key'
import { newId } from '../shared/ids'
import type { TableNames } from '../stores/grants.dynamodb'
import type { ApiKeyRecord, ProgramRecord, ProgramStatus } from '../stores/grants.store'

/**
 * Writes done by issuers outside the grant API (programs, keys). Used by the local seed and the
 * tests now, and by the admin CLI.
 */
export class AdminStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: TableNames,
    private readonly clock: () => number = Date.now,
  ) {}

  async createProgram(input: {
    issuerId: string
    mode: Mode
    name: string
    pool?: number
  }): Promise<ProgramRecord> {
    const program: ProgramRecord = {
      programId: newId('program'),
      issuerId: input.issuerId,
      mode: input.mode,
      name: input.name,
      status: 'active',
      issued: 0,
      ...(input.pool === undefined ? {} : { pool: input.pool, remaining: input.pool }),
      createdAt: new Date(this.clock()).toISOString(),
    }
    await this.client.send(
      new PutCommand({
        TableName: this.tables.programs,
        Item: program,
        ConditionExpression: 'attribute_not_exists(programId)',
      }),
    )
    return program
  }

  async setProgramStatus(programId: string, status: ProgramStatus): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tables.programs,
        Key: { programId },
        UpdateExpression: 'SET #status = :status',
        ConditionExpression: 'attribute_exists(programId)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': status },
      }),
    )
  }

  /** Returns the secret once; only its hash is stored. */
  async createApiKey(input: {
    issuerId: string
    mode: Mode
    expiresAt?: number
  }): Promise<{ secret: string; record: ApiKeyRecord }> {
    const secret = generateApiKey(input.mode)
    const record: ApiKeyRecord = {
      keyHash: hashApiKey(secret),
      keyId: newId('apiKey'),
      issuerId: input.issuerId,
      mode: input.mode,
      status: 'active',
      createdAt: new Date(this.clock()).toISOString(),
      ...(input.expiresAt === undefined ? {} : { expiresAt: input.expiresAt }),
      ...maskApiKey(secret),
    }
    await this.client.send(
      new PutCommand({
        TableName: this.tables.apiKeys,
        Item: record,
        ConditionExpression: 'attribute_not_exists(keyHash)',
      }),
    )
    return { secret, record }
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
}
