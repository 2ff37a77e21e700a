/**
 * A program's pool split over counter shards: the records and their rules, pure data (no SDK).
 *
 * Why: DynamoDB serialises transactions on one item (a second transaction touching an item that an
 * in-flight one holds is cancelled with `TransactionConflict`), so a program whose every grant
 * updates one counter item takes at most 1 / (service time) grants per second, whatever the
 * table's capacity. Each shard is an item of its own, owning a slice of `remaining`; a grant
 * updates one shard, so N shards take about N times the load before they conflict
 * (bench/contention: `npm run bench`, "hot program").
 *
 * Layout in the programs table:
 * - the program's own item (the "head") keeps what people and the grant path read: issuer, mode,
 *   name, status, pool, `shards` (how many), and `issued` as a base (what it counted before it was
 *   split, 0 for a program born sharded);
 * - shard `i` is `{ programId: "<programId>#shard-<i>", shardOf, issued, remaining? }`. It has no
 *   `issuerId` or `createdAt`, so it is in no index of the table, and the grant path never reads
 *   it to decide who may grant: the head does that.
 *
 * Invariant, kept by every write (each grant moves `amount` from one shard's `remaining` to its
 * `issued`; a move between shards is one transaction with exact conditions):
 *   pool = head.issued + Σ shard.issued + Σ shard.remaining
 * A program without `shards` (made before this release) is its own single shard, as before.
 */

/** What a new program gets: measured in `npm run bench` (see README, "One hot program"). */
export const DEFAULT_SHARDS = 64
/**
 * The most an operator may ask for. A move over every shard plus the grant and its audit entry
 * must fit in one TransactWriteItems (100 items), and a snapshot in one TransactGetItems (100).
 */
export const MAX_SHARDS = 96

/**
 * The smallest slice a new program's shard is given: a small pool is over quickly whatever its
 * layout, and thin slices run dry one after the other, each costing a failed write and a snapshot.
 */
export const MIN_SLICE = 100

/** Shards for a new program: DEFAULT_SHARDS, fewer when the pool is small (1 below 200). */
export const shardsForPool = (pool: number | undefined): number =>
  pool === undefined
    ? DEFAULT_SHARDS
    : Math.max(1, Math.min(DEFAULT_SHARDS, Math.floor(pool / MIN_SLICE)))

const SHARD_MARK = '#shard-'

export const shardKey = (programId: string, shard: number) => `${programId}${SHARD_MARK}${shard}`

/** The keys of a program's `shards` shard items, in shard order. */
export const shardKeys = (programId: string, shards: number) =>
  Array.from({ length: shards }, (_, i) => ({ programId: shardKey(programId, i) }))

/** The shard number of a shard item's key (`<programId>#shard-<i>`). */
export const shardNumber = (key: string) => Number(key.slice(key.lastIndexOf('-') + 1))

/** True for a shard item's key: scans of the programs table must skip them. */
export const isShardKey = (programId: string) => programId.includes(SHARD_MARK)

export type ShardRecord = {
  programId: string
  /** The program the shard belongs to. */
  shardOf: string
  issued: number
  /** Absent when the program has no pool (unlimited): the shard then only counts. */
  remaining?: number
}

/** Whole slices, as equal as they go: the first `pool % n` shards get one more. */
export const poolSlices = (pool: number, shards: number): number[] =>
  Array.from({ length: shards }, (_, i) => Math.floor(pool / shards) + (i < pool % shards ? 1 : 0))

export const newShards = (programId: string, shards: number, pool?: number): ShardRecord[] => {
  const slices = pool === undefined ? undefined : poolSlices(pool, shards)
  return shardKeys(programId, shards).map(({ programId: key }, i) => ({
    programId: key,
    shardOf: programId,
    issued: 0,
    ...(slices === undefined ? {} : { remaining: slices[i] as number }),
  }))
}

/**
 * The program's counters as people see them: `issued` summed over the head (its base) and the
 * shards; `remaining` is what the pool has left (the sum of the shards' slices).
 */
export const sumShards = <T extends { issued?: number; pool?: number; remaining?: number }>(
  head: T,
  shards: readonly ShardRecord[],
): T & { issued: number } => {
  const issued = (head.issued ?? 0) + shards.reduce((sum, shard) => sum + shard.issued, 0)
  if (head.pool === undefined) return { ...head, issued }
  return { ...head, issued, remaining: Math.max(0, head.pool - issued) }
}

/** Checks an operator's shard count. */
export const isValidShardCount = (n: unknown): n is number =>
  typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_SHARDS
