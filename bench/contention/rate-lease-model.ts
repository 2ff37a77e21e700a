import { type LogNormal, logNormal, MODEL_DEFAULTS, partitionOf } from './dynamodb-model'
import type { IoVirtualTime } from './io-virtual-time'

/**
 * The rate-lease item in the contention model: what `RateLeaseStore.lease` does to DynamoDB
 * (functions/stores/rate-leases.dynamodb.ts), in memory and in virtual time, for the rate-limit
 * model (./rate-limit-model.ts). Not DynamoDB: one item per key holding its GCRA "theoretical
 * arrival time", updated with the real store's conditions (`gcraLease` below mirrors them), and
 * what DynamoDB would add:
 * - a round trip (log-normal, the model's single-item figures), half of it before the write
 *   reaches the item, half after;
 * - per-item serialisation: writes to one item are applied one after another, each holding the
 *   item for `itemWriteMs` (an assumption: DynamoDB applies an item's writes in order at its
 *   partition's leader; 1 ms each is 1,000 a second, the partition's own limit);
 * - the partition's 1,000 write units a second (./dynamodb-model.ts's bucket: 1 unit per write of
 *   an item under 1 KB, a failed condition included, as DynamoDB charges it; 0.1 s banked), the
 *   item's partition by the model's hash of `rate#<keyId>` over the table's 4 partitions. A
 *   throttled write answers after the model's rejection time and changes nothing.
 */
export type LeaseRequest = {
  keyId: string
  tokens: number
  limit: number
  burst: number
  now: number
}
export type LeaseAnswer = { granted: number; tat: number } | 'unavailable'

/** The store's interface (functions/stores/rate-leases.store.ts). */
export type LeaseStore = {
  lease(request: LeaseRequest, options?: { signal?: AbortSignal }): Promise<LeaseAnswer>
}

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

/** The partition of a key's lease item (`rate#<keyId>` in the apiKeys table), by the model's hash. */
export const leasePartition = (keyId: string, partitions = LEASE_MODEL_DEFAULTS.partitions) =>
  partitionOf('apiKeys', `rate#${keyId}`, partitions)

/** What one write did to the item: its outcome is the real store's answer. */
export type ItemWrite = { keyId: string; at: number; request: LeaseRequest; answer: LeaseAnswer }

export type LeaseTable = ReturnType<typeof leaseTable>

/**
 * The items of every key, shared by the instances' stores: `storeFor` gives one instance its
 * store; `deliver` lets the instance hold an answer back (a frozen Lambda environment).
 */
export const leaseTable = ({
  time,
  random,
  params = LEASE_MODEL_DEFAULTS,
}: {
  time: IoVirtualTime
  random: () => number
  params?: LeaseModelParams
}) => {
  const items = new Map<string, { tat?: number; freeAt: number }>()
  const buckets = new Map<string, { tokens: number; at: number }>()
  const writes: ItemWrite[] = []
  let throttles = 0

  /** Takes a write unit from the item's partition, or says it has none. */
  const admit = (keyId: string, at: number) => {
    const partition = leasePartition(keyId, params.partitions)
    const burst = params.partitionWcu * params.burstSeconds
    const bucket = buckets.get(partition) ?? { tokens: burst, at }
    bucket.tokens = Math.min(burst, bucket.tokens + ((at - bucket.at) / 1000) * params.partitionWcu)
    bucket.at = at
    buckets.set(partition, bucket)
    if (bucket.tokens < 1) return false
    bucket.tokens -= 1
    return true
  }

  const lease = async (
    request: LeaseRequest,
    deliver: (answer: LeaseAnswer) => Promise<LeaseAnswer>,
  ): Promise<LeaseAnswer> => {
    const sent = time.now()
    const roundTrip = logNormal(params.roundTrip, random)
    await time.until(sent + roundTrip / 2)
    const arrived = time.now()
    if (!admit(request.keyId, arrived)) {
      throttles++
      await time.until(arrived + logNormal(params.rejection, random))
      return deliver('unavailable')
    }
    const item = items.get(request.keyId) ?? { freeAt: 0 }
    items.set(request.keyId, item)
    // Applied in arrival order, each after the one before it has left the item.
    const applied = Math.max(arrived, item.freeAt)
    item.freeAt = applied + params.itemWriteMs
    const { answer, tat } = gcraLease(item.tat, request)
    item.tat = tat
    writes.push({ keyId: request.keyId, at: applied, request, answer })
    await time.until(item.freeAt + roundTrip / 2)
    return deliver(answer)
  }

  return {
    storeFor: (deliver: (answer: LeaseAnswer) => Promise<LeaseAnswer> = async (a) => a) =>
      ({ lease: (request) => lease(request, deliver) }) satisfies LeaseStore,
    writes,
    throttles: () => throttles,
    tatOf: (keyId: string) => items.get(keyId)?.tat,
  }
}

/**
 * The real store's GCRA update (functions/stores/rate-leases.dynamodb.ts), on the item's `tat`
 * (undefined: no item yet): the new `tat` and the answer.
 */
export const gcraLease = (
  tat: number | undefined,
  { tokens, limit, burst, now }: LeaseRequest,
): { answer: LeaseAnswer; tat: number | undefined } => {
  const interval = 1000 / limit
  const tolerance = burst * interval
  const from = Math.max(tat ?? now, now)
  const room = Math.floor((now + tolerance - from) / interval + 1e-9)
  const granted = Math.max(0, Math.min(tokens, room))
  const next = granted > 0 ? from + granted * interval : tat
  return { answer: { granted, tat: next ?? now }, tat: next }
}
