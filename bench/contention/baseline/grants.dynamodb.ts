/**
 * FROZEN COPY of the grant path's store as released before counter shards (commit b6ccc1b),
 * for `npm run bench` only (bench/contention): "today's design" in the contention model.
 */
import { type CancellationReason, TransactionCanceledException } from '@aws-sdk/client-dynamodb'
import {
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb'
import { unmarshall } from '@aws-sdk/util-dynamodb'
import { ServiceUnavailable } from '../../../functions/domain/errors'
import { auditPut } from '../../../functions/stores/audit'
import type {
  ApiKeyRecord,
  CallOptions,
  CreateGrantInput,
  CreateGrantOutcome,
  GrantRecord,
  GrantStore,
  ProgramRecord,
} from './grants.store'

/** The tables the grant path uses; `audit` only where a management send writes its entry. */
export type TableNames = { apiKeys: string; programs: string; grants: string; audit?: string }

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number]

const THROTTLED = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
])

export class DynamoDbGrantStore implements GrantStore {
  constructor(
    protected readonly client: DynamoDBDocumentClient,
    protected readonly tables: TableNames,
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
    authority = key === undefined ? undefined : { kind: 'key', key },
    grant,
    now,
    audit,
    signal,
  }: CreateGrantInput): Promise<CreateGrantOutcome> {
    if (authority === undefined) throw new Error('createGrant needs a key or an authority')
    if (audit !== undefined && this.tables.audit === undefined) {
      throw new Error('createGrant with an audit entry needs the audit table')
    }
    // The program's issuer and mode are the authority's: a key's, or the member's issuer with the
    // program's mode. The grant record carries the same pair.
    const { issuerId, mode } = authority.kind === 'key' ? authority.key : authority
    const items: TransactItem[] = []
    const at = { key: -1, program: -1, grant: -1 }
    if (authority.kind === 'key') {
      at.key = items.length
      items.push({
        ConditionCheck: {
          TableName: this.tables.apiKeys,
          Key: { keyHash: authority.key.keyHash },
          ConditionExpression:
            '#status = :active AND (attribute_not_exists(#expires) OR #expires > :now)',
          ExpressionAttributeNames: { '#status': 'status', '#expires': 'expiresAt' },
          ExpressionAttributeValues: { ':active': 'active', ':now': now },
        },
      })
    }
    at.program = items.length
    items.push({
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
          ':issuer': issuerId,
          ':mode': mode,
          ':active': 'active',
          ':amount': grant.amount,
          ':minus': -grant.amount,
          ':zero': 0,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    })
    at.grant = items.length
    items.push({
      Put: {
        TableName: this.tables.grants,
        Item: grant,
        ConditionExpression: 'attribute_not_exists(#id)',
        ExpressionAttributeNames: { '#id': 'grantId' },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    })
    // The audit entry of a management send: written with the grant, or not at all.
    if (audit !== undefined) items.push(auditPut(this.tables.audit as string, audit))
    try {
      await this.client.send(new TransactWriteCommand({ TransactItems: items }), {
        abortSignal: signal,
      })
      return { kind: 'created' }
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error
      const reasons = error.CancellationReasons ?? []
      return this.decodeCancellation(
        reasons,
        { key: reasons[at.key], program: reasons[at.program], grant: reasons[at.grant] },
        grant,
        signal,
      )
    }
  }

  /**
   * Turns the per-item reasons of a cancelled transaction into one outcome, most decisive first:
   * a dead key, then an existing grant (a replay wins over any program state), then the program.
   */
  private async decodeCancellation(
    reasons: CancellationReason[],
    {
      key: keyReason,
      program: programReason,
      grant: grantReason,
    }: Record<'key' | 'program' | 'grant', CancellationReason | undefined>,
    grant: GrantRecord,
    signal: AbortSignal | undefined,
  ): Promise<CreateGrantOutcome> {
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
        : await this.findProgram(grant.programId, { signal })
      return { kind: 'program_rejected', program }
    }
    if (reasons.some((reason) => reason.Code === 'TransactionConflict')) return { kind: 'conflict' }
    throw new Error(
      `Unexpected transaction cancellation: ${reasons.map((reason) => reason.Code).join(',')}`,
    )
  }

  private async getGrant(grantId: string, signal?: AbortSignal): Promise<GrantRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tables.grants, Key: { grantId }, ConsistentRead: true }),
      { abortSignal: signal },
    )
    return Item as GrantRecord | undefined
  }

  async findProgram(
    programId: string,
    { signal }: CallOptions = {},
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
