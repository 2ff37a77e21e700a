import { ConditionalCheckFailedException, DynamoDBServiceException } from '@aws-sdk/client-dynamodb'
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { DynamoDbRateLeases } from '../../functions/stores/rate-leases.dynamodb'
import type { RateLeaseStore } from '../../functions/stores/rate-leases.store'
import { type LogNormal, logNormal, MODEL_DEFAULTS, partitionOf } from './dynamodb-model'
import type { IoVirtualTime } from './io-virtual-time'

/**
 * The rate-lease items in the contention model, for the rate-limit model (./rate-limit-model.ts):
 * the real store (functions/stores/rate-leases.dynamodb.ts, its rounds of conditional UpdateItem)
 * over a modelled document client that holds the items in memory and evaluates the store's own
 * update and condition expressions on them (`evaluate` below: a refused condition returns the old
 * item, as DynamoDB does with ReturnValuesOnConditionCheckFailure). Not DynamoDB; what it adds of
 * DynamoDB:
 * - a round trip (log-normal, the model's single-item figures), half of it before the write
 *   reaches the item, half after;
 * - per-item serialisation: writes to one item are applied one after another in arrival order,
 *   each holding the item for `itemWriteMs` (an assumption: 1 ms each is 1,000 a second, the
 *   partition's own limit);
 * - the partition's 1,000 write units a second (./dynamodb-model.ts's bucket, 0.1 s banked): 1 unit
 *   per write of an item under 1 KB, a refused condition included, as DynamoDB charges it; the
 *   item's partition by the model's hash of its key over the table's 4 partitions. A throttled
 *   write answers `ProvisionedThroughputExceededException` after the model's rejection time and
 *   changes nothing (no SDK retry: the model sits above them, as ./dynamodb-model.ts does).
 * Reads (the store's fallback when a refusal carries no item) see the item at once, cost no unit.
 */
export type LeaseModelParams = {
  roundTrip: LogNormal
  rejection: LogNormal
  itemWriteMs: number
  partitions: number
  partitionWcu: number
  burstSeconds: number
}

export const LEASE_MODEL_DEFAULTS: LeaseModelParams = {
  roundTrip: MODEL_DEFAULTS.single,
  rejection: MODEL_DEFAULTS.rejection,
  itemWriteMs: 1,
  partitions: MODEL_DEFAULTS.partitions,
  partitionWcu: MODEL_DEFAULTS.partitionWcu,
  burstSeconds: MODEL_DEFAULTS.burstSeconds,
}

/** The table the model's store names (any name: the model holds one table). */
export const LEASE_TABLE = 'rate-model-api-keys'

/** One write that reached an item: when it was applied and whether its condition held. */
export type ItemWrite = { itemKey: string; at: number; applied: boolean }

/** Waits, when an instance is frozen, until it runs again (the answer is then handed over). */
export type Hold = () => Promise<void>

export type LeaseTable = ReturnType<typeof leaseTable>

/** The items of every key, shared by the instances: `storeFor` gives one instance its store. */
export const leaseTable = ({
  time,
  random,
  params = LEASE_MODEL_DEFAULTS,
}: {
  time: IoVirtualTime
  random: () => number
  params?: LeaseModelParams
}) => {
  const items = new Map<string, { attrs: Record<string, number>; freeAt: number }>()
  const buckets = new Map<string, { tokens: number; at: number }>()
  const writes: ItemWrite[] = []
  let throttles = 0

  /** Takes a write unit from the item's partition, or says it has none. */
  const admit = (itemKey: string, at: number) => {
    const partition = partitionOf('apiKeys', itemKey, params.partitions)
    const burst = params.partitionWcu * params.burstSeconds
    const bucket = buckets.get(partition) ?? { tokens: burst, at }
    bucket.tokens = Math.min(burst, bucket.tokens + ((at - bucket.at) / 1000) * params.partitionWcu)
    bucket.at = at
    buckets.set(partition, bucket)
    if (bucket.tokens < 1) return false
    bucket.tokens -= 1
    return true
  }

  const send = async (command: unknown, hold: Hold): Promise<unknown> => {
    const sent = time.now()
    const roundTrip = logNormal(params.roundTrip, random)
    await time.until(sent + roundTrip / 2)
    const arrived = time.now()
    if (command instanceof GetCommand) {
      const item = items.get(String(command.input.Key?.keyHash))
      await time.until(arrived + roundTrip / 2)
      await hold()
      return { Item: item === undefined ? undefined : { ...item.attrs } }
    }
    if (!(command instanceof UpdateCommand) || command.input.TableName !== LEASE_TABLE)
      throw new Error('rate-lease model: only the store UpdateItem and GetItem on its table')
    const itemKey = String(command.input.Key?.keyHash)
    if (!admit(itemKey, arrived)) {
      throttles++
      await time.until(arrived + logNormal(params.rejection, random))
      await hold()
      throw refused()
    }
    const item = items.get(itemKey) ?? { attrs: {}, freeAt: 0 }
    items.set(itemKey, item)
    // Applied in arrival order, each after the one before it has left the item.
    const at = Math.max(arrived, item.freeAt)
    item.freeAt = at + params.itemWriteMs
    const old = { ...item.attrs }
    const outcome = evaluate(command.input, item.attrs)
    writes.push({ itemKey, at, applied: outcome !== 'refused' })
    await time.until(item.freeAt + roundTrip / 2)
    await hold()
    if (outcome === 'refused') throw conditionFailed(old)
    return { Attributes: outcome }
  }

  return {
    /** The real store over the modelled items; `hold` delays its answers (a frozen instance). */
    storeFor: (hold: Hold = async () => {}): RateLeaseStore =>
      new DynamoDbRateLeases(
        { send: (command: unknown) => send(command, hold) } as unknown as DynamoDBDocumentClient,
        { apiKeys: LEASE_TABLE },
      ),
    writes,
    throttles: () => throttles,
    /** The item's attributes now (for checks). */
    itemOf: (itemKey: string) => items.get(itemKey)?.attrs,
  }
}

type UpdateInput = {
  UpdateExpression?: string
  ConditionExpression?: string
  ExpressionAttributeNames?: Record<string, string>
  ExpressionAttributeValues?: Record<string, unknown>
  ReturnValues?: string
}

/**
 * An UpdateItem on `attrs` as DynamoDB evaluates it, for the grammar the store writes: a condition
 * of comparisons (`=`, `<>`, `<`, `<=`, `>`, `>=`) and attribute_exists/attribute_not_exists,
 * joined by AND (binding tighter) and OR, no parentheses; an update of `SET a = x[, ...]` where x
 * is an operand or `operand + operand` / `operand - operand`. A comparison with a missing attribute
 * is false. Anything else throws: a store that changes its expressions must change the model.
 * Returns the updated attributes (UPDATED_NEW) or 'refused'.
 */
export const evaluate = (
  input: UpdateInput,
  attrs: Record<string, number>,
): Record<string, number> | 'refused' => {
  const names = input.ExpressionAttributeNames ?? {}
  const values = input.ExpressionAttributeValues ?? {}
  const nameOf = (token: string) => (token.startsWith('#') ? names[token] : token) as string
  const operand = (token: string): number | undefined => {
    const t = token.trim()
    if (t.startsWith(':')) {
      if (!(t in values)) throw new Error(`rate-lease model: no value ${t}`)
      return Number(values[t])
    }
    if (!/^#?[A-Za-z_][A-Za-z0-9_]*$/.test(t)) throw new Error(`rate-lease model: operand ${t}`)
    return attrs[nameOf(t)]
  }
  const term = (text: string): boolean => {
    const t = text.trim()
    const fn = /^attribute_(not_)?exists\((#?[A-Za-z0-9_]+)\)$/.exec(t)
    if (fn) return (attrs[nameOf(fn[2] as string)] === undefined) === (fn[1] !== undefined)
    const cmp = /^(\S+)\s*(<=|>=|<>|=|<|>)\s*(\S+)$/.exec(t)
    if (!cmp) throw new Error(`rate-lease model: condition ${t}`)
    const a = operand(cmp[1] as string)
    const b = operand(cmp[3] as string)
    if (a === undefined || b === undefined) return false
    const op = cmp[2]
    return op === '='
      ? a === b
      : op === '<>'
        ? a !== b
        : op === '<'
          ? a < b
          : op === '<='
            ? a <= b
            : op === '>'
              ? a > b
              : a >= b
  }
  const condition = input.ConditionExpression
  if (condition !== undefined) {
    const holds = condition.split(/\s+OR\s+/).some((any) => any.split(/\s+AND\s+/).every(term))
    if (!holds) return 'refused'
  }
  const update = /^SET\s+(.+)$/.exec((input.UpdateExpression ?? '').trim())
  if (!update) throw new Error(`rate-lease model: update ${input.UpdateExpression}`)
  const next: Record<string, number> = {}
  for (const assignment of (update[1] as string).split(',')) {
    const [lhs, rhs] = assignment.split('=').map((s) => s.trim()) as [string, string]
    const sum = /^(.+?)\s*([+-])\s*(.+)$/.exec(rhs)
    const value = sum
      ? (operand(sum[1] as string) ?? Number.NaN) +
        (sum[2] === '-' ? -1 : 1) * (operand(sum[3] as string) ?? Number.NaN)
      : operand(rhs)
    if (value === undefined || Number.isNaN(value))
      throw new Error(`rate-lease model: ${assignment} on a missing attribute`)
    next[nameOf(lhs)] = value
  }
  Object.assign(attrs, next)
  return input.ReturnValues === 'UPDATED_NEW' ? next : {}
}

/** The refusals, with DynamoDB's names and words (ALL_OLD on a refused condition). */
const conditionFailed = (old: Record<string, number>) =>
  new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: { httpStatusCode: 400 },
    // No item, no Item: DynamoDB returns the old item only when there was one.
    ...(Object.keys(old).length === 0
      ? {}
      : { Item: Object.fromEntries(Object.entries(old).map(([k, v]) => [k, { N: String(v) }])) }),
  })
const refused = () =>
  new DynamoDBServiceException({
    name: 'ProvisionedThroughputExceededException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
    message:
      'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
  })
