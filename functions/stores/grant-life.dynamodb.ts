import { UpdateCommand } from '@aws-sdk/lib-dynamodb'
import type { GrantOffer, GrantRecord } from '../domain/grant'
import { type GrantHistoryEntry, OPEN_STATES } from '../domain/grant-lifecycle'
import type { ProgramRecord } from '../domain/program'
import {
  type ShardRecord,
  type ShardTake,
  shardKey,
  shardKeys,
  shardNumber,
} from '../domain/program-shards'
import { MAX_OFFER_TOKENS } from '../domain/recipient-offer'
import * as RETRY from '../runtime/retry-policies'
import { auditPut } from './audit'
import {
  DynamoDbGrantLifeReads,
  type GrantLifeTables,
  TOKEN_PREFIX,
} from './grant-life.reads.dynamodb'
import type { GrantChange, GrantLifeStore, LifeOutcome } from './grant-life.store'
import type { CallOptions } from './grants.store'
import { batchGetByKey } from './kernel/batch'
import { conditional } from './kernel/conditional'
import { cancellationReasons } from './kernel/dynamodb-errors'
import { type TransactItem, transact } from './kernel/transact'

export type { GrantLifeTables }

const LIMIT_PREFIX = 'limit#'

/**
 * The writes of a grant's life (stores/grant-life.store.ts): each one transaction, conditional on
 * the grant's state (and address) as it was read, so of racing changes exactly one is written, and
 * the shares of a grant that ends unaccepted go back to the slices it drew from in that same
 * transaction (docs/decisions/returning-shares.md).
 */
export class DynamoDbGrantLifeStore extends DynamoDbGrantLifeReads implements GrantLifeStore {
  async change(change: GrantChange): Promise<LifeOutcome> {
    const { grant, signal } = change
    const items: TransactItem[] = [this.grantUpdate(change)]
    if (change.returnShares !== undefined) {
      items.push(...(await this.returns(grant, change.returnShares.program, signal)))
    }
    if (change.audit !== undefined) items.push(this.audit(change.audit))
    return this.transact(items, signal)
  }

  /** The grant's own update: state, history line, what the change records; on its state as read. */
  private grantUpdate(change: GrantChange): TransactItem {
    const { grant } = change
    const sets: string[] = []
    const names: Record<string, string> = { '#status': 'status' }
    const values: Record<string, unknown> = { ':from': grant.status }
    if (change.entry !== undefined) {
      sets.push('#history = list_append(if_not_exists(#history, :none), :entry)')
      names['#history'] = 'history'
      values[':none'] = []
      values[':entry'] = [change.entry]
    }
    const set = (name: string, value: unknown) => {
      names[`#${name}`] = name
      values[`:${name}`] = value
      sets.push(`#${name} = :${name}`)
    }
    if (change.to !== undefined) set('status', change.to)
    if (change.reason !== undefined) set('rejectionReason', change.reason)
    if (change.identity !== undefined) set('identity', change.identity)
    if (change.acceptance !== undefined) set('acceptance', change.acceptance)
    // The offer is written whole, decided from the offer as read: on that offer too, so a link
    // token added, a reminder marked or a delivery recorded meanwhile is never overwritten (the
    // change is `stale`, and the use case decides again from a new read).
    let condition = '#status = :from'
    if (change.offer !== undefined) {
      set('offer', change.offer)
      if (grant.offer === undefined) condition += ' AND attribute_not_exists(#offer)'
      else {
        values[':readOffer'] = grant.offer
        condition += ' AND #offer = :readOffer'
      }
    }
    return {
      Update: {
        TableName: this.tables.grants,
        Key: { grantId: grant.grantId },
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    }
  }

  /**
   * Where a grant's shares go back: the head of a program without shards; the shard(s) it drew
   * from; for a grant made before draws were recorded, shards read now that have issued enough.
   */
  private async returns(
    grant: GrantRecord,
    program: Pick<ProgramRecord, 'programId' | 'shards' | 'pool'>,
    signal: AbortSignal | undefined,
  ): Promise<TransactItem[]> {
    const limited = program.pool !== undefined
    if (program.shards === undefined) {
      return [
        {
          Update: {
            TableName: this.tables.programs,
            Key: { programId: grant.programId },
            // The grant path ADDs -amount to `remaining` on every head (with or without a pool):
            // the return mirrors it, so the head's invariant holds either way.
            UpdateExpression: 'ADD #issued :minus, #remaining :amount',
            ConditionExpression: 'attribute_exists(#id) AND #issued >= :amount',
            ExpressionAttributeNames: {
              '#id': 'programId',
              '#issued': 'issued',
              '#remaining': 'remaining',
            },
            ExpressionAttributeValues: { ':minus': -grant.amount, ':amount': grant.amount },
          },
        },
      ]
    }
    const draws = drawsOf(grant)
    if (draws === undefined) return this.olderReturn(grant, program.shards, limited, signal)
    return draws.map(({ shard, take }) => this.shardReturn(grant.programId, shard, take, limited))
  }

  private shardReturn(programId: string, shard: number, take: number, limited: boolean) {
    return {
      Update: {
        TableName: this.tables.programs,
        Key: { programId: shardKey(programId, shard) },
        // `version` moves on every write to a shard, so a refusal can prove the pool short
        // (grant-tokens.ts: the double collect).
        UpdateExpression: limited
          ? 'ADD #issued :minus, #remaining :take, #version :one'
          : 'ADD #issued :minus, #version :one',
        ConditionExpression: 'attribute_exists(#of) AND #issued >= :take',
        ExpressionAttributeNames: {
          '#of': 'shardOf',
          '#issued': 'issued',
          '#version': 'version',
          ...(limited ? { '#remaining': 'remaining' } : {}),
        },
        ExpressionAttributeValues: {
          ':minus': -take,
          ':one': 1,
          ':take': take,
        },
      },
    } satisfies TransactItem
  }

  /**
   * For a grant made before draws were recorded. A program split into shards keeps what it had
   * counted as its head's `issued` (a base): such a grant's shares leave that base and join one
   * shard's slice (the invariant `pool = head.issued + Σ issued + Σ remaining` holds). If the base
   * is too small (a grant made on shards before this release), they leave the shards that have
   * issued the most, as a grant taken in parts would.
   */
  private async olderReturn(
    grant: GrantRecord,
    shards: number,
    limited: boolean,
    signal: AbortSignal | undefined,
  ): Promise<TransactItem[]> {
    const head = await this.findProgramHead(grant.programId, { signal })
    if ((head?.issued ?? 0) >= grant.amount) {
      const shard = Number.parseInt(grant.grantId.slice(-6), 36) % shards
      return [
        {
          Update: {
            TableName: this.tables.programs,
            Key: { programId: grant.programId },
            UpdateExpression: 'ADD #issued :minus',
            ConditionExpression: '#issued >= :amount',
            ExpressionAttributeNames: { '#issued': 'issued' },
            ExpressionAttributeValues: { ':minus': -grant.amount, ':amount': grant.amount },
          },
        },
        {
          Update: {
            TableName: this.tables.programs,
            Key: { programId: shardKey(grant.programId, shard) },
            UpdateExpression: limited
              ? 'ADD #remaining :amount, #version :one'
              : 'ADD #version :one',
            ConditionExpression: 'attribute_exists(#of)',
            ExpressionAttributeNames: {
              '#of': 'shardOf',
              '#version': 'version',
              ...(limited ? { '#remaining': 'remaining' } : {}),
            },
            ExpressionAttributeValues: {
              ':one': 1,
              ...(limited ? { ':amount': grant.amount } : {}),
            },
          },
        },
      ]
    }
    const found = (await batchGetByKey(
      this.client,
      this.tables.programs,
      'programId',
      shardKeys(grant.programId, shards).map((k) => k.programId),
      { signal, sleep: this.retry.sleep },
    )) as ShardRecord[]
    const byIssued = found
      .map((s) => ({ shard: shardNumber(s.programId), issued: s.issued ?? 0 }))
      .sort((a, b) => b.issued - a.issued)
    const takes: ShardTake[] = []
    let left = grant.amount
    for (const { shard, issued } of byIssued) {
      if (left === 0) break
      const take = Math.min(issued, left)
      if (take > 0) takes.push({ shard, take })
      left -= take
    }
    if (left > 0) {
      throw new Error(
        `The shards of ${grant.programId} have issued less than ${grant.grantId}'s amount`,
      )
    }
    return takes.map(({ shard, take }) => this.shardReturn(grant.programId, shard, take, limited))
  }

  async addOfferToken(
    grant: GrantRecord,
    token: { hash: string; expiresAt: string },
    { signal }: CallOptions = {},
  ): Promise<LifeOutcome> {
    const offer: GrantOffer = {
      ...(grant.offer ?? { delivery: 'pending' }),
      tokens: [...(grant.offer?.tokens ?? []), token.hash].slice(-MAX_OFFER_TOKENS),
    }
    return this.transact(
      [
        {
          Put: {
            TableName: this.tables.grants,
            Item: {
              grantId: `${TOKEN_PREFIX}${token.hash}`,
              tokenOf: grant.grantId,
              expiresAt: token.expiresAt,
              purgeAt: Math.ceil(Date.parse(token.expiresAt) / 1000) + 86_400,
            },
            ConditionExpression: 'attribute_not_exists(grantId)',
          },
        },
        {
          Update: {
            TableName: this.tables.grants,
            Key: { grantId: grant.grantId },
            UpdateExpression: 'SET #offer = :offer',
            // On the offer as read (see grantUpdate): two tokens added at once never lose one.
            ConditionExpression: `#status IN (:reserved, :offered) AND #recipient.#email = :email AND ${
              grant.offer === undefined ? 'attribute_not_exists(#offer)' : '#offer = :readOffer'
            }`,
            ExpressionAttributeNames: {
              '#offer': 'offer',
              '#status': 'status',
              '#recipient': 'recipient',
              '#email': 'email',
            },
            ExpressionAttributeValues: {
              ':offer': offer,
              ':reserved': OPEN_STATES[0],
              ':offered': OPEN_STATES[1],
              ':email': grant.recipient.email,
              ...(grant.offer === undefined ? {} : { ':readOffer': grant.offer }),
            },
          },
        },
      ],
      signal,
    )
  }

  async requestResend(
    grant: GrantRecord,
    input: {
      now: number
      minGapMs: number
      by?: 'issuer' | 'recipient'
      audit?: GrantChange['audit']
    },
    { signal }: CallOptions = {},
  ): Promise<LifeOutcome | 'too_soon'> {
    const last = grant.offer?.resendRequestedAt ?? grant.offer?.lastSentAt
    if (last !== undefined && Date.parse(last) > input.now - input.minGapMs) return 'too_soon'
    const at = new Date(input.now).toISOString()
    const { resendRequestedBy: _, ...read } = grant.offer ?? { delivery: 'pending' }
    const offer: GrantOffer = {
      ...read,
      resendRequestedAt: at,
      ...(input.by === 'recipient' ? { resendRequestedBy: 'recipient' } : {}),
    }
    const items: TransactItem[] = [
      {
        Update: {
          TableName: this.tables.grants,
          Key: { grantId: grant.grantId },
          UpdateExpression: 'SET #offer = :offer',
          // On the offer as read: of two resends at once, one is written.
          ConditionExpression:
            '#status = :status AND (attribute_not_exists(#offer) OR #offer = :old)',
          ExpressionAttributeNames: { '#offer': 'offer', '#status': 'status' },
          ExpressionAttributeValues: {
            ':offer': offer,
            ':status': grant.status,
            ':old': grant.offer ?? null,
          },
        },
      },
    ]
    if (input.audit !== undefined) items.push(this.audit(input.audit))
    return this.transact(items, signal)
  }

  async correctEmail(
    grant: GrantRecord,
    input: { email: string; entry: GrantHistoryEntry; audit?: GrantChange['audit'] },
    { signal }: CallOptions = {},
  ): Promise<LifeOutcome> {
    const offer: GrantOffer = { ...(grant.offer ?? { delivery: 'pending' }), tokens: [] }
    const items: TransactItem[] = [
      {
        Update: {
          TableName: this.tables.grants,
          Key: { grantId: grant.grantId },
          UpdateExpression:
            'SET #recipient.#email = :email, #key = :email, #offer = :offer, #history = list_append(if_not_exists(#history, :none), :entry)',
          ConditionExpression: '#status = :status AND #recipient.#email = :old',
          ExpressionAttributeNames: {
            '#recipient': 'recipient',
            '#email': 'email',
            '#key': 'recipientKey',
            '#offer': 'offer',
            '#history': 'history',
            '#status': 'status',
          },
          ExpressionAttributeValues: {
            ':email': input.email,
            ':offer': { ...offer, delivery: 'pending' },
            ':none': [],
            ':entry': [input.entry],
            ':status': grant.status,
            ':old': grant.recipient.email,
          },
        },
      },
    ]
    if (input.audit !== undefined) items.push(this.audit(input.audit))
    return this.transact(items, signal)
  }

  async countAttempt(
    key: string,
    input: { now: number; windowMs: number; limit: number },
    { signal }: CallOptions = {},
  ): Promise<'allowed' | 'limited'> {
    const window = Math.floor(input.now / input.windowMs)
    const written = await conditional(
      this.client.send(
        new UpdateCommand({
          TableName: this.tables.grants,
          Key: { grantId: `${LIMIT_PREFIX}${key}#${window}` },
          UpdateExpression: 'ADD #count :one SET #purge = :purge',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
          ExpressionAttributeNames: { '#count': 'count', '#purge': 'purgeAt' },
          ExpressionAttributeValues: {
            ':one': 1,
            ':limit': input.limit,
            ':purge': Math.ceil(((window + 2) * input.windowMs) / 1000),
          },
        }),
        { abortSignal: signal },
      ),
    )
    return written ? 'allowed' : 'limited'
  }

  private audit(entry: NonNullable<GrantChange['audit']>): TransactItem {
    if (this.tables.audit === undefined) throw new Error('An audited change needs the audit table')
    return auditPut(this.tables.audit, entry)
  }

  /**
   * One transaction: `stale` when the grant's condition (the first grant item) failed; another
   * transaction or a throttle is tried again a few times (RETRY.grantLifeWrite), then `unavailable`.
   */
  private async transact(
    items: TransactItem[],
    signal: AbortSignal | undefined,
  ): Promise<LifeOutcome> {
    const grantAt = items.findIndex(
      (item) =>
        item.Update?.Key?.grantId !== undefined &&
        !String(item.Update.Key.grantId).startsWith(TOKEN_PREFIX),
    )
    const outcome = await transact(this.client, items, {
      ...this.retry,
      signal,
      policy: RETRY.grantLifeWrite,
      retryOn: ['conflict', 'throttled'],
    })
    if (outcome.kind === 'done') return 'done'
    if (outcome.kind === 'failed') {
      if (outcome.failed.includes(grantAt)) return 'stale'
      const codes = outcome.reasons.map((r) => r.Code).join(',')
      throw new Error(
        `A grant's change was refused by item ${outcome.index} of its transaction (${codes})`,
      )
    }
    // A conflict reported on its own, not as a cancelled transaction, is thrown as it came.
    if (cancellationReasons(outcome.cause) === undefined) throw outcome.cause
    return 'unavailable'
  }
}

/** The slices a grant drew from, as recorded when it was made; undefined for older grants. */
export const drawsOf = (grant: Pick<GrantRecord, 'shard' | 'draws' | 'amount'>) =>
  grant.draws ??
  (grant.shard === undefined ? undefined : [{ shard: grant.shard, take: grant.amount }])
