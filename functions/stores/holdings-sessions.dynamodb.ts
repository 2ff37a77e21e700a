import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb'
import type { Mode } from '../domain/api-key'
import * as RETRY from '../runtime/retry-policies'
import type { CallOptions } from './grants.store'
import type { Holder, HoldingsSession, HoldingsSessionStore } from './holdings-sessions.store'
import { conditional } from './kernel/conditional'
import { getItem } from './kernel/get'
import { transact } from './kernel/transact'

export const HOLDINGS_TOKEN_PREFIX = 'holdings-token#'
export const HOLDINGS_SESSION_PREFIX = 'holdings-session#'

/** A day after its end, DynamoDB's TTL removes an item nobody used again (`purgeAt`, seconds). */
const purgeAt = (expiresAt: string) => Math.ceil(Date.parse(expiresAt) / 1000) + 86_400

type HolderItem = { holderKey: string; mode: Mode; issuerId?: string; expiresAt: string }

const holderItem = (holder: Holder, expiresAt: string) => ({
  holderKey: holder.email,
  mode: holder.mode,
  ...(holder.issuerId === undefined ? {} : { issuerId: holder.issuerId }),
  expiresAt,
  purgeAt: purgeAt(expiresAt),
})

const sessionOf = (item: HolderItem & { lastUsedAt: string }): HoldingsSession => ({
  email: item.holderKey,
  mode: item.mode,
  ...(item.issuerId === undefined ? {} : { issuerId: item.issuerId }),
  lastUsedAt: item.lastUsedAt,
  expiresAt: item.expiresAt,
})

// Live at :now: ISO times of one form compare as strings.
const LIVE = 'attribute_exists(grantId) AND expiresAt > :now'

/** Holdings link tokens and sessions in the grants table (stores/holdings-sessions.store.ts). */
export class DynamoDbHoldingsSessions implements HoldingsSessionStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { grants: string },
  ) {}

  async putLinkToken(
    input: { hash: string; holder: Holder; expiresAt: string },
    { signal }: CallOptions = {},
  ) {
    await this.client.send(
      new PutCommand({
        TableName: this.tables.grants,
        Item: {
          grantId: `${HOLDINGS_TOKEN_PREFIX}${input.hash}`,
          ...holderItem(input.holder, input.expiresAt),
        },
        // 256 random bits never meet an existing one; the condition says so rather than overwrite.
        ConditionExpression: 'attribute_not_exists(grantId)',
      }),
      { abortSignal: signal },
    )
  }

  async redeemLinkToken(
    hash: string,
    session: { hash: string; now: number; idleMs: number },
    { signal }: CallOptions = {},
  ): Promise<HoldingsSession | 'gone' | 'unavailable'> {
    const key = { grantId: `${HOLDINGS_TOKEN_PREFIX}${hash}` }
    const token = (await getItem(this.client, this.tables.grants, key, { signal })) as
      | HolderItem
      | undefined
    const now = new Date(session.now).toISOString()
    if (token === undefined || token.expiresAt <= now) return 'gone'
    const holder: Holder = {
      email: token.holderKey,
      mode: token.mode,
      ...(token.issuerId === undefined ? {} : { issuerId: token.issuerId }),
    }
    const expiresAt = new Date(session.now + session.idleMs).toISOString()
    // The token's delete is the condition: of two calls with one token, one session is made.
    const outcome = await transact(
      this.client,
      [
        {
          Delete: {
            TableName: this.tables.grants,
            Key: key,
            ConditionExpression: LIVE,
            ExpressionAttributeValues: { ':now': now },
          },
        },
        {
          Put: {
            TableName: this.tables.grants,
            Item: {
              grantId: `${HOLDINGS_SESSION_PREFIX}${session.hash}`,
              ...holderItem(holder, expiresAt),
              lastUsedAt: now,
            },
            ConditionExpression: 'attribute_not_exists(grantId)',
          },
        },
      ],
      // A racing use of the same token (TransactionConflict) is sent again: it then finds the
      // token gone, and answers as a used one.
      { signal, policy: RETRY.grantLifeWrite, retryOn: ['conflict', 'throttled'] },
    )
    if (outcome.kind === 'failed') return 'gone'
    if (outcome.kind === 'unavailable') return 'unavailable'
    return { ...holder, lastUsedAt: now, expiresAt }
  }

  async touchSession(
    hash: string,
    input: { now: number; idleMs: number },
    { signal }: CallOptions = {},
  ) {
    const now = new Date(input.now).toISOString()
    const expiresAt = new Date(input.now + input.idleMs).toISOString()
    const written = await conditional(
      this.client.send(
        new UpdateCommand({
          TableName: this.tables.grants,
          Key: { grantId: `${HOLDINGS_SESSION_PREFIX}${hash}` },
          UpdateExpression: 'SET lastUsedAt = :now, expiresAt = :end, purgeAt = :purge',
          ConditionExpression: LIVE,
          ExpressionAttributeValues: {
            ':now': now,
            ':end': expiresAt,
            ':purge': purgeAt(expiresAt),
          },
          ReturnValues: 'ALL_NEW',
        }),
        { abortSignal: signal },
      ),
    )
    const item = written?.Attributes as (HolderItem & { lastUsedAt: string }) | undefined
    return item === undefined ? undefined : sessionOf(item)
  }

  async deleteSession(hash: string, now: number, { signal }: CallOptions = {}) {
    const deleted = await conditional(
      this.client.send(
        new DeleteCommand({
          TableName: this.tables.grants,
          Key: { grantId: `${HOLDINGS_SESSION_PREFIX}${hash}` },
          ConditionExpression: LIVE,
          ExpressionAttributeValues: { ':now': new Date(now).toISOString() },
        }),
        { abortSignal: signal },
      ),
    )
    return deleted === undefined ? ('gone' as const) : ('done' as const)
  }
}
