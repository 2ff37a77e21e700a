import { createHash } from 'node:crypto'

/**
 * The timers table's keys (functions/table-schema.ts, `timers`): when an open offer next
 * needs the service, its reminder and its expiry. Pure data and rules: the stream reader
 * (core/grant-stream.ts) writes timers with these keys and the sweep (core/offer-sweep.ts) reads
 * every slot with them, so the two cannot disagree.
 */

/**
 * Partitions the timers are spread over. A grant writes two timers; one partition takes about
 * 1,000 writes a second, so 32 slots carry about 16,000 grants a second, above what the grant path
 * reaches. The sweep reads all of them every minute (32 Queries). Changing it strands the timers of
 * the old slots: only with a migration.
 */
export const TIMER_SLOTS = 32

export type TimerKind = 'expire' | 'remind'

/** A timers item. */
export type TimerRecord = {
  /** `due#<n>`: timerSlot(grantId). */
  slot: string
  /** `<ISO time>#<grantId>#<kind>`: sorts by time, so the sweep reads `due <= now#~`. */
  due: string
  grantId: string
  kind: TimerKind
  /** TTL (epoch seconds): a timer the sweep never reached is dropped some days after it was due. */
  purgeAt: number
}

/**
 * The slot of a grant's timers: `due#<n>`, n = the first 4 bytes of SHA-256 of the grant id (big
 * endian) mod TIMER_SLOTS (as grant-slots.ts does for listings).
 */
export const timerSlot = (grantId: string): string =>
  `due#${createHash('sha256').update(grantId, 'utf8').digest().readUInt32BE(0) % TIMER_SLOTS}`

/** Every slot, in order: what the sweep reads. */
export const allTimerSlots = (): string[] =>
  Array.from({ length: TIMER_SLOTS }, (_, n) => `due#${n}`)

/** The sort key of a timer. */
export const timerDue = (atIso: string, grantId: string, kind: TimerKind): string =>
  `${atIso}#${grantId}#${kind}`

/**
 * The upper bound of a sweep's Query for the timers due at `nowIso`: `due <= <now>#~` takes every
 * timer of that very millisecond too (`~` sorts after every character of a grant id).
 */
export const dueUpTo = (nowIso: string): string => `${nowIso}#~`

/** How long a timer is kept after it was due if the sweep never deletes it. */
export const TIMER_PURGE_AFTER_S = 7 * 24 * 60 * 60

/** A timer for `grantId`, due at `atMs`. */
export const timerFor = (grantId: string, kind: TimerKind, atMs: number): TimerRecord => ({
  slot: timerSlot(grantId),
  due: timerDue(new Date(atMs).toISOString(), grantId, kind),
  grantId,
  kind,
  purgeAt: Math.floor(atMs / 1000) + TIMER_PURGE_AFTER_S,
})
