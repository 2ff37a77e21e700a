import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { emissionIntervalUs, gcraAvailable, msToUs } from '../domain/rate-limit'
import { isConditionFailed } from './kernel/dynamodb-errors'
import type { RateLease, RateLeaseRequest, RateLeaseStore } from './rate-leases.store'
import { transientKind } from './store-errors'

/** The bucket's item in the apiKeys table (table-schema.ts): no index holds it. */
export const RATE_ITEM_PREFIX = 'rate#'
export const rateItemKey = (keyId: string) => `${RATE_ITEM_PREFIX}${keyId}`

/** Compare-and-set rounds before granting nothing: each learns the tat the last one met. */
const ROUNDS = 3
const DAY_S = 86_400
/**
 * A bucket further ahead of this clock than its burst (plus this much) was not written by a clock
 * in step with ours: ours went back (a test's, or a host's corrected) or another ran ahead. GCRA
 * never sets one there, so it is reset to start from now, on the exact value seen, rather than
 * refusing the key until this clock catches up.
 */
const AHEAD_SLACK_US = 1_000_000

/** The `tat` a refused write found: ALL_OLD on the error (raw or unmarshalled), else undefined. */
const foundTat = (error: unknown): number | undefined | 'unknown' => {
  const item = (error as { Item?: Record<string, unknown> }).Item
  if (item === undefined) return 'unknown'
  const tat = item.tat as number | { N?: string } | undefined
  if (tat === undefined) return undefined
  return typeof tat === 'number' ? tat : Number(tat.N)
}

/**
 * GCRA leases without a read first: one conditional UpdateItem on `rate#<keyId>` grants what the
 * bucket holds; a refused condition returns the item (ReturnValuesOnConditionCheckFailure), so
 * the next round asks for what it now knows is there. `tat` is epoch microseconds (exact sums).
 */
export class DynamoDbRateLeases implements RateLeaseStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { apiKeys: string },
  ) {}

  async lease(
    { keyId, tokens, limit, burst, now }: RateLeaseRequest,
    { signal }: { signal?: AbortSignal } = {},
  ): Promise<RateLease | 'unavailable'> {
    const nowUs = msToUs(now)
    const t = emissionIntervalUs(limit)
    // Unknown at first: an idle key's item is past (or absent), the common case for one write.
    let tat: number | undefined
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const ahead = tat !== undefined && tat > nowUs + burst * t + AHEAD_SLACK_US
        const known = tat !== undefined && tat > nowUs && !ahead
        const want = Math.min(
          Math.floor(tokens),
          known ? gcraAvailable(tat as number, nowUs, limit, burst) : burst,
        )
        if (want <= 0) return { granted: 0, tat: (tat ?? nowUs) / 1000 }
        const seen = ahead ? tat : undefined
        const outcome = await this.write(keyId, { known, seen, want, t, nowUs, burst }, signal)
        if (typeof outcome === 'number') return { granted: want, tat: outcome / 1000 }
        // DynamoDB returns the refused item (ALL_OLD); without it, nothing is known: grant nothing.
        if (outcome.found === 'unknown') return { granted: 0, tat: nowUs / 1000 }
        tat = outcome.found
      }
      // Outraced every round by other instances: the bucket is busy, so nothing this time.
      return { granted: 0, tat: (tat ?? nowUs) / 1000 }
    } catch (error) {
      if (transientKind(error) !== undefined) return 'unavailable'
      throw error
    }
  }

  /** One conditional write: the new tat, or what the refused condition found. */
  private async write(
    keyId: string,
    {
      known,
      seen,
      want,
      t,
      nowUs,
      burst,
    }: {
      known: boolean
      seen: number | undefined
      want: number
      t: number
      nowUs: number
      burst: number
    },
    signal: AbortSignal | undefined,
  ): Promise<number | { found: number | undefined | 'unknown' }> {
    const purgeAt = Math.ceil(nowUs / 1e6) + DAY_S
    const command = known
      ? // A bucket in use: tat moves on by what is taken, while it stays within the burst.
        new UpdateCommand({
          TableName: this.tables.apiKeys,
          Key: { keyHash: rateItemKey(keyId) },
          UpdateExpression: 'SET tat = tat + :taken, purgeAt = :purgeAt',
          ConditionExpression: 'tat > :now AND tat <= :last',
          ExpressionAttributeValues: {
            ':taken': want * t,
            ':now': nowUs,
            ':last': nowUs + (burst - want) * t,
            ':purgeAt': purgeAt,
          },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        })
      : // An idle (or new) bucket is full: it starts from now; so does one ahead of any clock
        // in step with ours (AHEAD_SLACK_US), on the value seen.
        new UpdateCommand({
          TableName: this.tables.apiKeys,
          Key: { keyHash: rateItemKey(keyId) },
          UpdateExpression: 'SET tat = :tat, purgeAt = :purgeAt',
          ConditionExpression:
            seen === undefined ? 'attribute_not_exists(tat) OR tat <= :now' : 'tat = :seen',
          ExpressionAttributeValues: {
            ':tat': nowUs + want * t,
            ...(seen === undefined ? { ':now': nowUs } : { ':seen': seen }),
            ':purgeAt': purgeAt,
          },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        })
    try {
      const { Attributes } = await this.client.send(command, { abortSignal: signal })
      return Number((Attributes as { tat: number }).tat)
    } catch (error) {
      if (isConditionFailed(error)) return { found: foundTat(error) }
      throw error
    }
  }
}
