import type { Mode } from '../../domain/api-key'
import { PoolExhausted, ProgramNotFound, RequestConflict } from '../../domain/errors'
import type { GrantRecord } from '../../domain/grant'
import type { AuditEntry } from '../../domain/people'
import { type ProgramRecord, programRefusal } from '../../domain/program'
import { poolRemaining } from '../../domain/program-shards'
import type { GrantAuthority, GrantStore, GrantTarget } from '../../stores/grants.store'
import type { AccessCache, ProgramAccess } from '../access-cache'
import { refusalError } from '../program-refusal'
import type { GrantPause } from './grant-pause'
import { type GrantTokensResult, replayOf } from './grant-record'
import { pickTarget } from './shard-picker'
import { readTarget, type ShardReads, takenFromSeen } from './slot-spread'

/**
 * Bound on reads of the shards (and of the head) in one grant. Each follows a write that failed
 * only because other grants took from, or held, the same slices a moment before: the pool moved
 * on. When it moves this fast, the caller retries with the same Idempotency-Key.
 */
export const MAX_READS = 12

export type GrantWrite = {
  store: GrantStore
  access: AccessCache
  random: () => number
  pause: GrantPause
  signal: AbortSignal | undefined
  authority: GrantAuthority
  grant: GrantRecord
  audit: AuditEntry | undefined
  /** The head as checked; it passed programRefusal. */
  program: ProgramAccess
  /** A refusal decided without writing (a replay of a grant already made still wins over it). */
  refuse: (error: Error) => Promise<GrantTokensResult>
}

/**
 * Writes the grant: each attempt picks its target (the head, a shard, or a spread from a read of
 * them all) and writes it in one transaction; a conflict or throttle waits (`pause`) and tries
 * again, a slice found short or a changed shard count reads again (at most MAX_READS).
 */
export const writeGrant = async (write: GrantWrite): Promise<GrantTokensResult> => {
  const { store, access, grant, authority, signal } = write
  const { issuerId, mode } = authority.kind === 'key' ? authority.key : authority
  let program = write.program
  let reads = 0
  const run: ShardReads = {
    programId: grant.programId,
    amount: grant.amount,
    last: undefined,
    random: write.random,
    signal,
    store,
    access,
    nextRead() {
      if (++reads > MAX_READS) throw new RequestConflict()
    },
    async reload() {
      run.nextRead()
      access.forgetProgram(grant.programId)
      const fresh = (await access.check({ programId: grant.programId }, { signal })).program
      const refusal = programRefusal(fresh?.head, { issuerId, mode }, 'grant')
      if (refusal) throw refusalError(refusal, grant.programId)
      program = fresh as ProgramAccess
      return program
    },
  }
  const knownExhausted = access.knownExhausted.bind(access)
  // A slice was found short in this request: the next choice is made from a read of them all.
  let mustRead = false
  for (;;) {
    const current = program
    const picked = mustRead
      ? undefined
      : pickTarget({
          current,
          amount: grant.amount,
          last: run.last,
          random: run.random,
          knownExhausted,
        })
    const target = picked ?? (await readTarget(run, current))
    mustRead = false
    if ('refusal' in target) return write.refuse(target.refusal)
    recordDraws(grant, target)
    const outcome = await store.createGrant({
      authority,
      target,
      grant,
      ...(write.audit === undefined ? {} : { audit: write.audit }),
      signal,
    })
    switch (outcome.kind) {
      case 'created':
        takenFromSeen(current.seen, target, grant.amount)
        return { grant, replayed: false }
      case 'grant_exists':
        return replayOf(outcome.existing, grant)
      case 'program_rejected':
        // The head said no; if it was split meanwhile, go on with its shards.
        if (outcome.program?.shards === undefined) {
          throw programError(outcome.program, { issuerId, mode }, grant)
        }
        await run.reload()
        break
      case 'shard_dry':
        current.seen.set(outcome.shard, outcome.remaining)
        mustRead = true
        break
      case 'shard_missing':
        await run.reload()
        break
      case 'conflict':
      case 'throttled':
        await write.pause(outcome.kind, target.kind !== 'head')
        if (target.kind === 'shard') run.last = target.shard
        // Another grant held some of a spread's slices: choose again from a new read.
        if (target.kind === 'spread') mustRead = true
    }
  }
}

/**
 * The slices this attempt takes from, on the grant itself (written in its own PutItem): a
 * grant that ends unaccepted gives its shares back there (returning-shares.md).
 */
const recordDraws = (grant: GrantRecord, target: GrantTarget) => {
  delete grant.shard
  delete grant.draws
  if (target.kind === 'shard') grant.shard = target.shard
  if (target.kind === 'spread')
    grant.draws = target.takes.map(({ shard, take }) => ({ shard, take }))
}

/** Why the head refused the grant, from the head as it was when refused. */
const programError = (
  program: ProgramRecord | undefined,
  key: { issuerId: string; mode: Mode },
  grant: GrantRecord,
) => {
  const refusal = programRefusal(program, key, 'grant')
  if (refusal) return refusalError(refusal, grant.programId)
  if (!program) return new ProgramNotFound(grant.programId)
  const remaining = poolRemaining(program.pool, program.issued)
  if (remaining !== null) return new PoolExhausted(remaining, grant.amount)
  // Every condition held when read back: a concurrent change; the caller may retry.
  return new RequestConflict()
}
