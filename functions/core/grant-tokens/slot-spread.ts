import { PoolExhausted } from '../../domain/errors'
import { type ShardRecord, type ShardTake, spreadTakes } from '../../domain/program-shards'
import type { GrantStore, GrantTarget } from '../../stores/grants.store'
import type { AccessCache, ProgramAccess } from '../access-cache'
import { pickOther, pickTarget } from './shard-picker'

/**
 * From what a read of every slice left (`seen`): a random slice that holds the whole grant (not
 * `last` when there is another), or else (room in total, none in any one slice) the grant taken in
 * parts from the fullest slices, in its own transaction.
 */
export const slotSpread = (
  seen: ReadonlyMap<number, number>,
  amount: number,
  last: number | undefined,
  random: () => number,
): GrantTarget => {
  const fits = [...seen.entries()].filter(([, left]) => left >= amount).map(([shard]) => shard)
  if (fits.length > 0) return { kind: 'shard', shard: pickOther(fits, last, random), limited: true }
  return { kind: 'spread', takes: spreadTakes(seen, amount, random) as ShardTake[] }
}

/** What a written grant took comes off what the instance has seen of those slices. */
export const takenFromSeen = (seen: Map<number, number>, target: GrantTarget, amount: number) => {
  const parts =
    target.kind === 'spread'
      ? target.takes
      : target.kind === 'shard' && target.limited
        ? [{ shard: target.shard, take: amount }]
        : []
  for (const { shard, take } of parts) {
    const left = seen.get(shard)
    if (left !== undefined) seen.set(shard, Math.max(0, left - take))
  }
}

/** One grant's reads of the shards: what they read with, and the bound on them. */
export type ShardReads = {
  programId: string
  amount: number
  /** The shard that just conflicted. */
  last: number | undefined
  random: () => number
  signal: AbortSignal | undefined
  store: Pick<GrantStore, 'readShards'>
  access: Pick<AccessCache, 'learnShards' | 'knownExhausted'>
  /** Counts a read; past the bound, the pool is moving too fast to settle: a conflict. */
  nextRead(): void
  /** Reads the head again (its shard count changed), checks it again, and answers it. */
  reload(): Promise<ProgramAccess>
}

/**
 * Every shard read, strongly consistent, in one BatchGetItem (no transaction in flight can
 * cancel it): the pool is short (their total is below the amount; program-shards.ts says why
 * that proves it), or a slice holds the grant, or the grant is spread (slotSpread).
 */
export const readTarget = async (
  run: ShardReads,
  current: ProgramAccess,
): Promise<GrantTarget | { refusal: Error }> => {
  const { programId, amount, signal } = run
  const shards = current.head.shards as number
  run.nextRead()
  const found = await run.store.readShards(programId, shards, { signal })
  if (found.length !== shards) {
    const reloaded = await run.reload()
    const knownExhausted = run.access.knownExhausted.bind(run.access)
    return (
      pickTarget({
        current: reloaded,
        amount,
        last: run.last,
        random: run.random,
        knownExhausted,
      }) ?? readTarget(run, reloaded)
    )
  }
  let total = run.access.learnShards(current, found, amount)
  if (total < amount) {
    // Returns make slices grow, so one read's total may be below what the pool held at any
    // one moment. A second read with every shard's version unchanged proves nothing was
    // written between them: the first read's values held together (the double collect).
    run.nextRead()
    const again = await run.store.readShards(programId, shards, { signal })
    if (sameVersions(found, again)) return { refusal: new PoolExhausted(total, amount) }
    total = run.access.learnShards(current, again, amount)
    if (total < amount) return readTarget(run, current)
  }
  return slotSpread(current.seen, amount, run.last, run.random)
}

/** Whether two reads of a program's shards saw each shard at one version (no write between). */
export const sameVersions = (first: ShardRecord[], second: ShardRecord[]) => {
  const versions = new Map(first.map((shard) => [shard.programId, shard.version ?? 0]))
  return (
    first.length === second.length &&
    second.every((shard) => versions.get(shard.programId) === (shard.version ?? 0))
  )
}
