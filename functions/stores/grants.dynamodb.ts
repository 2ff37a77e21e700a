import type { CancellationReason } from '@aws-sdk/client-dynamodb'
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb'
import { unmarshall } from '@aws-sdk/util-dynamodb'
import type { ApiKeyRecord } from '../domain/api-key'
import type { GrantRecord } from '../domain/grant'
import type { ProgramRecord } from '../domain/program'
import { type ShardRecord, shardKey, shardKeys, sumShards } from '../domain/program-shards'
import { auditPut } from './audit'
import type {
  AccessRead,
  CallOptions,
  CreateGrantInput,
  CreateGrantOutcome,
  GrantStore,
} from './grants.store'
import { batchGet } from './kernel/batch'
import { type TransactItem, transact } from './kernel/transact'

/** The tables the grant path uses; `audit` only where a management send writes its entry. */
export type TableNames = { apiKeys: string; programs: string; grants: string; audit?: string }

export class DynamoDbGrantStore implements GrantStore {
  constructor(
    protected readonly client: DynamoDBDocumentClient,
    protected readonly tables: TableNames,
  ) {}

  async findAccess(
    { keyHash, programId }: { keyHash?: string; programId?: string },
    { signal }: CallOptions = {},
  ): Promise<AccessRead> {
    if (keyHash !== undefined && programId !== undefined) {
      const [key, program] = await this.keyAnd<ProgramRecord>(
        keyHash,
        this.tables.programs,
        { programId },
        { signal },
      )
      return { key, program }
    }
    if (keyHash !== undefined) {
      const { Item } = await this.client.send(
        new GetCommand({ TableName: this.tables.apiKeys, Key: { keyHash }, ConsistentRead: true }),
        { abortSignal: signal },
      )
      return { key: Item as ApiKeyRecord | undefined }
    }
    if (programId !== undefined) return { program: await this.findHead(programId, signal) }
    return {}
  }

  async createGrant({
    authority,
    target,
    grant,
    audit,
    signal,
  }: CreateGrantInput): Promise<CreateGrantOutcome> {
    if (audit !== undefined && this.tables.audit === undefined) {
      throw new Error('createGrant with an audit entry needs the audit table')
    }
    const { issuerId, mode } = authority.kind === 'key' ? authority.key : authority
    // The counters first (one, or a spread's parts), then the grant: the reasons of a cancelled
    // transaction are decoded by position.
    const items: TransactItem[] = this.counterUpdates(target, grant, { issuerId, mode })
    const grantAt = items.length
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
    // One send: the use case (core/grant-tokens.ts) decides what a throttle or conflict means.
    const outcome = await transact(this.client, items, { signal })
    if (outcome.kind === 'done') return { kind: 'created' }
    if (outcome.kind === 'unavailable') {
      return { kind: outcome.reason === 'throttled' ? 'throttled' : 'conflict' }
    }
    return this.decodeRefusal(outcome.reasons, grantAt, target, grant, signal)
  }

  /** The counters a grant moves, with the conditions of its kind (see GrantTarget). */
  private counterUpdates(
    target: CreateGrantInput['target'],
    grant: GrantRecord,
    { issuerId, mode }: { issuerId: string; mode: string },
  ): TransactItem[] {
    if (target.kind === 'spread') {
      return target.takes.map(({ shard, take }) => this.shardTake(grant.programId, shard, take))
    }
    if (target.kind === 'head') {
      return [
        {
          Update: {
            TableName: this.tables.programs,
            Key: { programId: grant.programId },
            // `remaining` is only checked when the program has a pool; ADD keeps the
            // expression the same for every program so the warm path needs no read.
            UpdateExpression:
              'SET #issued = if_not_exists(#issued, :zero) + :amount ADD #remaining :minus',
            ConditionExpression:
              '#issuer = :issuer AND #mode = :mode AND #status = :active AND attribute_not_exists(#shards) AND (attribute_not_exists(#pool) OR #remaining >= :amount)',
            ExpressionAttributeNames: {
              '#issuer': 'issuerId',
              '#mode': 'mode',
              '#status': 'status',
              '#pool': 'pool',
              '#shards': 'shards',
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
        },
      ]
    }
    if (!target.limited) {
      // An unlimited program's shards have no `remaining`: they only count.
      return [
        {
          Update: {
            TableName: this.tables.programs,
            Key: { programId: shardKey(grant.programId, target.shard) },
            UpdateExpression: 'ADD #issued :amount, #version :one',
            ConditionExpression: 'attribute_exists(#of)',
            ExpressionAttributeNames: {
              '#of': 'shardOf',
              '#issued': 'issued',
              '#version': 'version',
            },
            ExpressionAttributeValues: { ':amount': grant.amount, ':one': 1 },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ]
    }
    return [this.shardTake(grant.programId, target.shard, grant.amount)]
  }

  /** `take` moves from a shard's `remaining` to its `issued`, if it has that much left. */
  private shardTake(programId: string, shard: number, take: number): TransactItem {
    return {
      Update: {
        TableName: this.tables.programs,
        Key: { programId: shardKey(programId, shard) },
        // `version` moves on every write to a shard: the double collect's proof (grant-tokens.ts).
        UpdateExpression: 'ADD #issued :take, #remaining :minus, #version :one',
        ConditionExpression: 'attribute_exists(#of) AND #remaining >= :take',
        ExpressionAttributeNames: {
          '#of': 'shardOf',
          '#issued': 'issued',
          '#remaining': 'remaining',
          '#version': 'version',
        },
        ExpressionAttributeValues: { ':take': take, ':minus': -take, ':one': 1 },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    }
  }

  async readShards(
    programId: string,
    shards: number,
    { signal }: CallOptions = {},
  ): Promise<ShardRecord[]> {
    const found = await batchGet(
      this.client,
      { [this.tables.programs]: { Keys: shardKeys(programId, shards), ConsistentRead: true } },
      { signal },
    )
    return (found[this.tables.programs] ?? []) as ShardRecord[]
  }

  async findGrant(grantId: string, { signal }: CallOptions = {}) {
    return this.getGrant(grantId, signal)
  }

  /**
   * Turns the per-item reasons of a transaction whose condition failed into one outcome, most
   * decisive first: an existing grant (a replay wins over any program state), then the counter.
   */
  private async decodeRefusal(
    reasons: CancellationReason[],
    grantAt: number,
    target: CreateGrantInput['target'],
    grant: GrantRecord,
    signal: AbortSignal | undefined,
  ): Promise<CreateGrantOutcome> {
    const grantReason = reasons[grantAt]
    if (grantReason?.Code === 'ConditionalCheckFailed') {
      const existing = grantReason.Item
        ? (unmarshall(grantReason.Item) as GrantRecord)
        : await this.getGrant(grant.grantId, signal)
      // Deleted between the failed write and this read: let the caller try again.
      return existing ? { kind: 'grant_exists', existing } : { kind: 'conflict' }
    }
    const failed = reasons.findIndex(
      (reason, i) => i < grantAt && reason.Code === 'ConditionalCheckFailed',
    )
    if (failed >= 0) {
      const reason = reasons[failed] as CancellationReason
      const old = reason.Item ? unmarshall(reason.Item) : undefined
      if (target.kind === 'head') {
        const program =
          (old as ProgramRecord | undefined) ?? (await this.findHead(grant.programId, signal))
        return { kind: 'program_rejected', program }
      }
      const shard = target.kind === 'shard' ? target.shard : (target.takes[failed]?.shard as number)
      if (old === undefined) return { kind: 'shard_missing', shard }
      return { kind: 'shard_dry', shard, remaining: Number(old.remaining ?? 0) }
    }
    throw new Error(
      `Unexpected transaction cancellation: ${reasons.map((reason) => reason.Code).join(',')}`,
    )
  }

  async findGrantWithKey(
    keyHash: string,
    grantId: string,
    options: CallOptions = {},
  ): Promise<{ key: ApiKeyRecord | undefined; grant: GrantRecord | undefined }> {
    const [key, grant] = await this.keyAnd<GrantRecord>(
      keyHash,
      this.tables.grants,
      { grantId },
      options,
    )
    return { key, grant }
  }

  /** The key and one item of another table in one BatchGetItem, both strongly consistent. */
  protected async keyAnd<T>(
    keyHash: string,
    table: string,
    itemKey: Record<string, string>,
    { signal }: CallOptions,
  ): Promise<[ApiKeyRecord | undefined, T | undefined]> {
    const found = await batchGet(
      this.client,
      {
        [this.tables.apiKeys]: { Keys: [{ keyHash }], ConsistentRead: true },
        [table]: { Keys: [itemKey], ConsistentRead: true },
      },
      { signal },
    )
    return [
      found[this.tables.apiKeys]?.[0] as ApiKeyRecord | undefined,
      found[table]?.[0] as T | undefined,
    ]
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
    const head = await this.findHead(programId, signal)
    return head === undefined ? undefined : this.withShards(head, signal)
  }

  /** The program's own item, counters not summed. */
  protected async findHead(programId: string, signal?: AbortSignal) {
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

  /**
   * The head with `issued` and `remaining` summed over its shards (one consistent BatchGetItem;
   * a program without shards is returned as it is). The shards are read one by one, not as one
   * snapshot: a total may be a moment old, never wrong by more than grants made meanwhile.
   */
  protected async withShards(head: ProgramRecord, signal?: AbortSignal): Promise<ProgramRecord> {
    if (head.shards === undefined) return head
    const shards = await this.readShards(head.programId, head.shards, { signal })
    const { remaining: _, ...rest } = head
    return sumShards(rest, shards)
  }
}
