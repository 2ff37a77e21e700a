import { PoolExhausted } from '../../domain/errors'
import { sliceOf } from '../../domain/program-shards'
import type { GrantTarget } from '../../stores/grants.store'
import type { ProgramAccess } from '../access-cache'

/** A target to write, a refusal decided without writing, or undefined: a read must decide. */
export type Pick = GrantTarget | { refusal: Error } | undefined

export type PickInput = {
  current: ProgramAccess
  amount: number
  /** The shard that just conflicted: the pick avoids it when it can. */
  last: number | undefined
  random: () => number
  /** What this instance knows the pool is short of (AccessCache.knownExhausted). */
  knownExhausted: (current: ProgramAccess, amount: number) => number | undefined
}

/**
 * The counter this attempt moves, decided from what is known without a read: the head (a
 * program without shards), a refusal (a read a moment ago found the pool short), or a random
 * shard whose slice may hold the whole grant (not the one that just conflicted, when there is
 * another): a slice's first size, or what was last seen of it, bounds what it holds (slices
 * only shrink). Undefined when no slice can hold the grant alone: a read decides (slot-spread.ts).
 */
export const pickTarget = ({ current, amount, last, random, knownExhausted }: PickInput): Pick => {
  const { head } = current
  if (head.shards === undefined) return { kind: 'head' }
  const shards = head.shards
  const pool = head.pool
  // An unlimited program's shards only count: any shard takes any grant.
  if (pool === undefined) {
    const shard =
      last === undefined
        ? Math.floor(random() * shards)
        : pickOther(allShards(shards), last, random)
    return { kind: 'shard', shard, limited: false }
  }
  const known = knownExhausted(current, amount)
  if (known !== undefined) return { refusal: new PoolExhausted(known, amount) }
  // The warm path: nothing seen of the slices, an amount every slice started with: any shard.
  if (current.seen.size === 0 && last === undefined && amount <= Math.floor(pool / shards)) {
    return { kind: 'shard', shard: Math.floor(random() * shards), limited: true }
  }
  const fits: number[] = []
  for (let i = 0; i < shards; i++) {
    if ((current.seen.get(i) ?? sliceOf(pool, shards, i)) >= amount) fits.push(i)
  }
  if (fits.length === 0) return undefined
  return { kind: 'shard', shard: pickOther(fits, last, random), limited: true }
}

/** A random one of `candidates`, not `last` (the shard that just conflicted) if another. */
export const pickOther = (
  candidates: number[],
  last: number | undefined,
  random: () => number,
): number => {
  const others = candidates.length > 1 ? candidates.filter((s) => s !== last) : candidates
  return others[Math.floor(random() * others.length)] as number
}

const allShards = (shards: number) => Array.from({ length: shards }, (_, i) => i)
