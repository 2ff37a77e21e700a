/**
 * A program's pool split over counter shards: the records and their rules, pure data (no SDK).
 * Why shards (one counter item serialises a program's grants), and why 64:
 * docs/decisions/counter-shards.md.
 *
 * Layout in the programs table:
 * - the program's own item (the "head") keeps what people and the grant path read: issuer, mode,
 *   name, status, pool, `shards` (how many), and `issued` as a base (what it counted before it was
 *   split, 0 for a program born sharded);
 * - shard `i` is `{ programId: "<programId>#shard-<i>", shardOf, issued, remaining? }`. It has no
 *   `issuerId` or `createdAt`, so it is in no index of the table, and the grant path never reads
 *   it to decide who may grant: the head does that.
 *
 * Invariant, kept by every write (a grant moves `amount` from `remaining` to `issued`, on one
 * shard or, when no one slice holds it, in parts over several in one transaction):
 *   pool = head.issued + Σ shard.issued + Σ shard.remaining
 * Only grants write `remaining`, and they only lower it: each shard's `remaining` never grows, so a
 * value seen is an upper bound from then on, and shards read one by one (no snapshot) add up to at
 * least what is left once the read ends: a total read below a grant's amount proves the pool short.
 * A program without `shards` (made before shards existed) is its own single shard.
 */

/** What a new program gets: measured in `npm run bench` (docs/decisions/counter-shards.md). */
export const DEFAULT_SHARDS = 64
/**
 * The most an operator may ask for. A grant taken in parts from every shard, plus the grant and
 * its audit entry, must fit in one TransactWriteItems (100 items), and a read of all of them in one
 * BatchGetItem (100 keys).
 */
export const MAX_SHARDS = 96

/**
 * The smallest slice a new program's shard is given: a small pool is over quickly whatever its
 * layout, and thin slices run dry one after the other, each costing a failed write and a read.
 * Large slices are not needed for large grants: a grant larger than a slice is taken in parts
 * (spreadTakes), and a program whose grants outsize its slices makes few grants in all (fewer
 * than its shard count), so it has no load to spread.
 */
export const MIN_SLICE = 100

/** Shards for a new program: DEFAULT_SHARDS, fewer when the pool is small (1 below 200). */
export const shardsForPool = (pool: number | undefined): number =>
  pool === undefined
    ? DEFAULT_SHARDS
    : Math.max(1, Math.min(DEFAULT_SHARDS, Math.floor(pool / MIN_SLICE)))

/**
 * What is left of a program's pool: null for a program without one (unlimited), never below 0
 * (a pool lowered under what was issued has nothing left, not a negative amount). Every door
 * that shows or checks it (the grant API, the management API, send to many, the CLI) asks here.
 */
export const poolRemaining = (
  pool: number | undefined,
  issued: number | undefined,
): number | null => (pool === undefined ? null : Math.max(0, pool - (issued ?? 0)))

const SHARD_MARK = '#shard-'

export const shardKey = (programId: string, shard: number) => `${programId}${SHARD_MARK}${shard}`

/** The keys of a program's `shards` shard items, in shard order. */
export const shardKeys = (programId: string, shards: number) =>
  Array.from({ length: shards }, (_, i) => ({ programId: shardKey(programId, i) }))

/** The shard number of a shard item's key (`<programId>#shard-<i>`). */
export const shardNumber = (key: string) => Number(key.slice(key.lastIndexOf('-') + 1))

/** True for a shard item's key. */
export const isShardKey = (programId: string) => programId.includes(SHARD_MARK)

const TERMS_MARK = '#terms'

/** The key of the item holding a program's terms text (`<programId>#terms`). */
export const termsKey = (programId: string) => `${programId}${TERMS_MARK}`

/**
 * True for any item of the programs table that is not a program's head (a shard, the terms
 * text): program ids never hold `#`, so scans and listings of the table skip these keys.
 */
export const isSubItemKey = (programId: string) => programId.includes('#')

export type TermsRecord = { programId: string; termsOf: string; version: number; text: string }

export type ShardRecord = {
  programId: string
  /** The program the shard belongs to. */
  shardOf: string
  issued: number
  /** Absent when the program has no pool (unlimited): the shard then only counts. */
  remaining?: number
  /**
   * Moves by one on every write to the shard (a take, a return): two reads with the same versions
   * saw the shard unchanged between them (the double collect, core/grant-tokens/slot-spread.ts).
   * Absent: 0.
   */
  version?: number
}

/** Shard `i`'s first slice: whole slices, as equal as they go, the first `pool % n` one more. */
export const sliceOf = (pool: number, shards: number, i: number): number =>
  Math.floor(pool / shards) + (i < pool % shards ? 1 : 0)

export const poolSlices = (pool: number, shards: number): number[] =>
  Array.from({ length: shards }, (_, i) => sliceOf(pool, shards, i))

/** One shard's part of a grant that no single slice holds. */
export type ShardTake = { shard: number; take: number }

/**
 * How a grant of `amount` is taken from slices of which `remaining` (by shard number) is known,
 * or undefined when they hold less than `amount` in all. Slices are drawn at random, the fuller
 * the likelier first (weighted sampling without replacement, key `u^(1/left)`): full slices keep
 * the parts few (items in the grant's transaction), and the chance keeps concurrent grants, all
 * reading the same slices, from all reaching for the same ones. Each part is written with the
 * condition `remaining >= take`, so a slice that shrank since it was read fails the grant; it
 * never overdraws.
 */
export const spreadTakes = (
  remaining: ReadonlyMap<number, number>,
  amount: number,
  random: () => number,
): ShardTake[] | undefined => {
  const drawn = [...remaining.entries()]
    .filter(([, left]) => left > 0)
    .map(([shard, left]) => ({ shard, left, key: Math.max(random(), 1e-12) ** (1 / left) }))
    .sort((a, b) => b.key - a.key)
  const takes: ShardTake[] = []
  let due = amount
  for (const { shard, left } of drawn) {
    if (due === 0) break
    const take = Math.min(left, due)
    takes.push({ shard, take })
    due -= take
  }
  return due === 0 ? takes : undefined
}

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
  const remaining = poolRemaining(head.pool, issued)
  return remaining === null ? { ...head, issued } : { ...head, issued, remaining }
}

/** Checks an operator's shard count. */
export const isValidShardCount = (n: unknown): n is number =>
  typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_SHARDS
