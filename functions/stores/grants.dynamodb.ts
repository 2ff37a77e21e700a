import { type CancellationReason, TransactionCanceledException } from '@aws-sdk/client-dynamodb'
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb'
import { unmarshall } from '@aws-sdk/util-dynamodb'
import { ServiceUnavailable } from '../shared/errors'
import { sleep } from '../shared/sleep'
import type {
  ApiKeyRecord,
  CallOptions,
  CreateGrantOutcome,
  GrantRecord,
  GrantStore,
  KeyIdentity,
  ProgramRecord,
} from './grants.store'

export type TableNames = { apiKeys: string; programs: string; grants: string }

const THROTTLED = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
])

export class DynamoDbGrantStore implements GrantStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: TableNames,
  ) {}

  async findApiKey(
    keyHash: string,
    { signal }: CallOptions = {},
  ): Promise<ApiKeyRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tables.apiKeys, Key: { keyHash }, ConsistentRead: true }),
      { abortSignal: signal },
    )
    return Item as ApiKeyRecord | undefined
  }

  async createGrant({
    key,
    grant,
    now,
    signal,
  }: {
    key: KeyIdentity
    grant: GrantRecord
    now: number
  } & CallOptions): Promise<CreateGrantOutcome> {
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.tables.apiKeys,
                Key: { keyHash: key.keyHash },
                ConditionExpression:
                  '#status = :active AND (attribute_not_exists(#expires) OR #expires > :now)',
                ExpressionAttributeNames: { '#status': 'status', '#expires': 'expiresAt' },
                ExpressionAttributeValues: { ':active': 'active', ':now': now },
              },
            },
            {
              Update: {
                TableName: this.tables.programs,
                Key: { programId: grant.programId },
                // `remaining` is only checked when the program has a pool; ADD keeps the
                // expression the same for every program so the warm path needs no read.
                UpdateExpression:
                  'SET #issued = if_not_exists(#issued, :zero) + :amount ADD #remaining :minus',
                ConditionExpression:
                  '#issuer = :issuer AND #mode = :mode AND #status = :active AND (attribute_not_exists(#pool) OR #remaining >= :amount)',
                ExpressionAttributeNames: {
                  '#issuer': 'issuerId',
                  '#mode': 'mode',
                  '#status': 'status',
                  '#pool': 'pool',
                  '#issued': 'issued',
                  '#remaining': 'remaining',
                },
                ExpressionAttributeValues: {
                  ':issuer': key.issuerId,
                  ':mode': key.mode,
                  ':active': 'active',
                  ':amount': grant.amount,
                  ':minus': -grant.amount,
                  ':zero': 0,
                },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            {
              Put: {
                TableName: this.tables.grants,
                Item: grant,
                ConditionExpression: 'attribute_not_exists(#id)',
                ExpressionAttributeNames: { '#id': 'grantId' },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
          ],
        }),
        { abortSignal: signal },
      )
      return { kind: 'created' }
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error
      return this.decodeCancellation(error.CancellationReasons ?? [], grant, signal)
    }
  }

  /**
   * Turns the per-item reasons of a cancelled transaction into one outcome, most decisive first:
   * a dead key, then an existing grant (a replay wins over any program state), then the program.
   */
  private async decodeCancellation(
    reasons: CancellationReason[],
    grant: GrantRecord,
    signal: AbortSignal | undefined,
  ): Promise<CreateGrantOutcome> {
    const [keyReason, programReason, grantReason] = reasons
    if (reasons.some((reason) => reason.Code !== undefined && THROTTLED.has(reason.Code))) {
      throw new ServiceUnavailable({
        cause: new Error(`Transaction cancelled: ${reasons.map((r) => r.Code).join(',')}`),
      })
    }
    if (keyReason?.Code === 'ConditionalCheckFailed') return { kind: 'key_rejected' }
    if (grantReason?.Code === 'ConditionalCheckFailed') {
      const existing = grantReason.Item
        ? (unmarshall(grantReason.Item) as GrantRecord)
        : await this.getGrant(grant.grantId, signal)
      // Deleted between the failed write and this read: let the caller try again.
      return existing ? { kind: 'grant_exists', existing } : { kind: 'conflict' }
    }
    if (programReason?.Code === 'ConditionalCheckFailed') {
      const program = programReason.Item
        ? (unmarshall(programReason.Item) as ProgramRecord)
        : await this.getProgram(grant.programId, signal)
      return { kind: 'program_rejected', program }
    }
    if (reasons.some((reason) => reason.Code === 'TransactionConflict')) return { kind: 'conflict' }
    throw new Error(
      `Unexpected transaction cancellation: ${reasons.map((reason) => reason.Code).join(',')}`,
    )
  }

  async findGrantWithKey(
    keyHash: string,
    grantId: string,
    { signal }: CallOptions = {},
  ): Promise<{ key: ApiKeyRecord | undefined; grant: GrantRecord | undefined }> {
    let request: Record<string, { Keys: Record<string, unknown>[]; ConsistentRead: boolean }> = {
      [this.tables.apiKeys]: { Keys: [{ keyHash }], ConsistentRead: true },
      [this.tables.grants]: { Keys: [{ grantId }], ConsistentRead: true },
    }
    let key: ApiKeyRecord | undefined
    let grant: GrantRecord | undefined
    // BatchGet may hand back keys it did not get to; ask again for those only.
    for (let attempt = 0; attempt < 5; attempt++) {
      const result = await this.client.send(new BatchGetCommand({ RequestItems: request }), {
        abortSignal: signal,
      })
      key ??= result.Responses?.[this.tables.apiKeys]?.[0] as ApiKeyRecord | undefined
      grant ??= result.Responses?.[this.tables.grants]?.[0] as GrantRecord | undefined
      const unprocessed = result.UnprocessedKeys ?? {}
      if (Object.keys(unprocessed).length === 0) return { key, grant }
      request = unprocessed as typeof request
      await sleep(20 * 2 ** attempt, signal)
    }
    throw new ServiceUnavailable({ cause: new Error('BatchGetItem left keys unprocessed 5 times') })
  }

  private async getGrant(grantId: string, signal?: AbortSignal): Promise<GrantRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tables.grants, Key: { grantId }, ConsistentRead: true }),
      { abortSignal: signal },
    )
    return Item as GrantRecord | undefined
  }

  private async getProgram(
    programId: string,
    signal?: AbortSignal,
  ): Promise<ProgramRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tables.programs,
        Key: { programId },
        ConsistentRead: true,
      }),
      { abortSignal: signal },
    )
    return Item as ProgramRecord | undefined
  }
}
