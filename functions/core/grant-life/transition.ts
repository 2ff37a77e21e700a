import type { GrantOffer, GrantRecord } from '../../domain/grant'
import {
  actorOnHistory,
  type GrantActor,
  type GrantEvent,
  type GrantHistoryEntry,
  grantExpiresAt,
  nextState,
  returnsShares,
  type TransitionRefusal,
} from '../../domain/grant-lifecycle'
import { isOpen } from '../../domain/recipient-offer'
import { LOST_RACE, optimisticUpdate } from '../../runtime/optimistic-update'
import * as RETRY from '../../runtime/retry-policies'
import type { GrantChange, LifeOutcome } from '../../stores/grant-life.store'
import { type LifeContext, refusalError, reread, unavailable } from './life-context'

/**
 * The two writes every change of a grant goes through, each decided on the grant as read and
 * written on condition it is unchanged: of racing changes exactly one is written; the loser waits
 * (RETRY.lostRace), reads again and decides again.
 */

/** What a transition records beside the state, and which refusals are answers, not errors. */
export type MoveExtras = Pick<GrantChange, 'identity' | 'acceptance'> & {
  audit?: (grant: GrantRecord) => GrantChange['audit']
  /** Refusals that are answers, not errors (an identify already done). */
  accept?: (refusal: TransitionRefusal, grant: GrantRecord) => boolean
}

/** The lost-race policy on the context's sleep and random. */
export const lostRace = (ctx: LifeContext) => ({
  policy: RETRY.lostRace,
  sleep: ctx.sleep,
  random: ctx.random,
})

/**
 * Applies `event` by `actor`, deciding again from a fresh read whenever another change won.
 * Returns the grant as written. `extras` adds what the change records (identity, acceptance).
 */
export const move = (
  ctx: LifeContext,
  start: GrantRecord,
  event: GrantEvent,
  actor: GrantActor,
  extras: MoveExtras = {},
): Promise<GrantRecord> =>
  optimisticUpdate(start, {
    ...lostRace(ctx),
    attempt: (grant) => moveOnce(ctx, grant, event, actor, extras),
    reread: (grant) => reread(ctx.store, grant),
    exhausted: (grant) => {
      throw unavailable(grant)
    },
  })

/** One decision and its conditional write: the grant as written, or LOST_RACE. */
const moveOnce = async (
  { store, clock, iso }: LifeContext,
  grant: GrantRecord,
  event: GrantEvent,
  actor: GrantActor,
  extras: MoveExtras,
): Promise<GrantRecord | typeof LOST_RACE> => {
  const decided = nextState(
    { state: grant.status, expiresAt: grantExpiresAt(grant) },
    event,
    actor,
    clock(),
  )
  if ('refused' in decided) {
    if (extras.accept?.(decided.refused, grant)) return grant
    throw refusalError(grant, decided.refused)
  }
  const program = returnsShares(decided.to)
    ? await store.findProgramHead(grant.programId)
    : undefined
  const reason = decided.reason === undefined ? {} : { reason: decided.reason }
  const entry: GrantHistoryEntry = {
    at: iso(),
    event: 'transition',
    state: decided.to,
    ...reason,
    actor: actorOnHistory(actor),
  }
  const records = {
    ...(extras.identity === undefined ? {} : { identity: extras.identity }),
    ...(extras.acceptance === undefined ? {} : { acceptance: extras.acceptance }),
  }
  const audit = extras.audit?.(grant)
  const outcome = await store.change({
    grant,
    to: decided.to,
    ...reason,
    entry,
    ...records,
    ...(program === undefined ? {} : { returnShares: { program } }),
    ...(audit === undefined ? {} : { audit }),
  })
  if (outcome === 'unavailable') throw unavailable(grant)
  if (outcome !== 'done') return LOST_RACE
  return {
    ...grant,
    status: decided.to,
    ...(decided.reason === undefined ? {} : { rejectionReason: decided.reason }),
    ...records,
    history: [...(grant.history ?? []), entry],
  }
}

/** A delivery event (or a mark nobody reads as one) on the grant's offer, on its state as read. */
export const onOffer = async (
  ctx: LifeContext,
  grantId: string,
  offerOf: (grant: GrantRecord) => GrantOffer | undefined,
  entryOf: (grant: GrantRecord) => GrantHistoryEntry | undefined,
): Promise<LifeOutcome | 'missing' | 'skipped'> =>
  optimisticUpdate(await ctx.store.findGrant(grantId), {
    ...lostRace(ctx),
    attempt: async (grant) => {
      if (grant === undefined) return 'missing'
      const offer = offerOf(grant)
      if (offer === undefined) return 'skipped'
      const entry = entryOf(grant)
      const outcome = await ctx.store.change({ grant, offer, ...(entry ? { entry } : {}) })
      return outcome === 'stale' ? LOST_RACE : outcome
    },
    reread: () => ctx.store.findGrant(grantId),
    exhausted: () => 'unavailable' as const,
  })

/**
 * An issuer's write on the open grant as read (a resend, a corrected address): `write` answers
 * the store's outcome, or the grant when nothing is to be written. The grant as written.
 */
export const writeOnOpen = async (
  ctx: LifeContext,
  start: GrantRecord,
  write: (grant: GrantRecord) => Promise<LifeOutcome | GrantRecord>,
): Promise<GrantRecord> =>
  optimisticUpdate(start, {
    ...lostRace(ctx),
    attempt: async (grant) => {
      if (!isOpen(grant.status)) throw refusalError(grant, 'final')
      const outcome = await write(grant)
      if (typeof outcome === 'object') return outcome
      if (outcome === 'unavailable') throw unavailable(grant)
      return outcome === 'done' ? reread(ctx.store, grant) : LOST_RACE
    },
    reread: (grant) => reread(ctx.store, grant),
    exhausted: (grant) => {
      throw unavailable(grant)
    },
  })
