/**
 * A program's figures from the grants table's stream, pure data (no SDK): what one change of a
 * grant adds to its program's holders and daily counters, which changes of a batch count (each
 * once), and where the items live in the figures table. Written by stores/figures.dynamodb.ts;
 * why it is built this way: docs/decisions/figures-from-the-stream.md.
 */

import { createHash } from 'node:crypto'
import type { GrantRecord } from './grant'
import { type GrantState, isGrantOpen } from './grant-lifecycle'
import { decodeCursor, encodeCursor } from './page-cursor'

/** Index partitions of one program's holders (`holderSlot`). Changing it needs a rewrite of holders. */
export const HOLDER_SLOTS = 8
/** Counter items per program and day; a batch writes one, picked at random, so two rarely meet. */
export const DAILY_SHARDS = 4
/** How long a final grant's marker outlives its last change (s): the stream keeps records 24 h. */
export const MARKER_KEEP_SECONDS = 2 * 24 * 60 * 60

/** The daily counters, in the order they are shown. */
export const DAILY_COUNTERS = [
  'made',
  'offered',
  'accepted',
  'declined',
  'ineligibleAge',
  'ineligibleCountry',
  'expired',
  'canceled',
  'sharesIssued',
  'sharesAccepted',
  'sharesReturned',
] as const
export type DailyCounter = (typeof DAILY_COUNTERS)[number]
export type DailyCounts = Partial<Record<DailyCounter, number>>

/** What one change adds to one holder (a program and a normalised address). */
export type HolderDelta = {
  programId: string
  recipientKey: string
  accepted: number
  pending: number
}
/** What one change adds to one day of a program. */
export type DailyDelta = { programId: string; date: string; counts: DailyCounts }

/** What one change of a grant contributes, and its identity for counting it once. */
export type FigureChange = {
  sequenceNumber: string
  grantId: string
  /** The grant's history length after the change (an INSERT is 0): later changes are higher. */
  version: number
  inserted: boolean
  /** The grant is final after it: its marker can be purged later. */
  final: boolean
  holders: HolderDelta[]
  daily: DailyDelta[]
}

/** A holder's slot number: the first 4 bytes of SHA-256 of the address, mod HOLDER_SLOTS. */
const slotOf = (recipientKey: string) =>
  createHash('sha256').update(recipientKey, 'utf8').digest().readUInt32BE(0) % HOLDER_SLOTS

/** The slot of a holder (the index's partition): `<programId>#<n>`. */
export const holderSlot = (programId: string, recipientKey: string): string =>
  `${programId}#${slotOf(recipientKey)}`

/** Every holder slot of a program, in slot order: what a holders page reads. */
export const allHolderSlots = (programId: string): string[] =>
  Array.from({ length: HOLDER_SLOTS }, (_, n) => `${programId}#${n}`)

/**
 * A holder's item partition: `holder#<programId>#<n>`, its slot again, so a program's holder
 * updates spread over HOLDER_SLOTS partition keys in the table as in the index (one key per
 * program took every grant's update on one partition: 500 grants a second at most).
 */
export const holderKey = (programId: string, recipientKey: string) =>
  `holder#${holderSlot(programId, recipientKey)}`
export const dailyKey = (programId: string) => `daily#${programId}`
export const markerKey = (grantId: string) => `applied#${grantId}`

/** The address a grant counts under: its normalised `recipientKey` (older grants: the e-mail). */
const holderOf = (grant: GrantRecord) => grant.recipientKey ?? grant.recipient.email

/** Where a grant's shares stand for its holder: pending while open, accepted once accepted. */
const position = (grant: GrantRecord | undefined) => {
  if (grant === undefined) return undefined
  if (isGrantOpen(grant.status)) return { key: holderOf(grant), pending: grant.amount, accepted: 0 }
  if (grant.status === 'accepted')
    return { key: holderOf(grant), pending: 0, accepted: grant.amount }
  return undefined
}

/** The holders' deltas from `before` to `after`: the new position minus the old, per address. */
const holderDeltas = (
  programId: string,
  before: GrantRecord | undefined,
  after: GrantRecord,
): HolderDelta[] => {
  const deltas = new Map<string, HolderDelta>()
  const add = (p: ReturnType<typeof position>, sign: 1 | -1) => {
    if (p === undefined) return
    const delta = deltas.get(p.key) ?? { programId, recipientKey: p.key, accepted: 0, pending: 0 }
    delta.accepted += sign * p.accepted
    delta.pending += sign * p.pending
    deltas.set(p.key, delta)
  }
  add(position(before), -1)
  add(position(after), 1)
  return [...deltas.values()].filter((d) => d.accepted !== 0 || d.pending !== 0)
}

/** What reaching `state` counts on its day (nothing for `reserved`). */
const countsOfState = (grant: GrantRecord, state: GrantState): DailyCounts => {
  const amount = grant.amount
  switch (state) {
    case 'reserved':
      return {}
    case 'offered':
      return { offered: 1 }
    case 'accepted':
      return { accepted: 1, sharesAccepted: amount }
    case 'expired':
      return { expired: 1, sharesReturned: amount }
    case 'canceled':
      return { canceled: 1, sharesReturned: amount }
    case 'rejected': {
      const reason = grant.rejectionReason
      const counter: DailyCounter =
        reason === 'ineligible_age'
          ? 'ineligibleAge'
          : reason === 'ineligible_country'
            ? 'ineligibleCountry'
            : 'declined'
      return { [counter]: 1, sharesReturned: amount }
    }
  }
}

/** The UTC day (YYYY-MM-DD) of an ISO time, or of the stream's time when the line has none. */
const dayOf = (iso: string | undefined, fallbackSeconds: number | undefined): string =>
  (iso ?? new Date((fallbackSeconds ?? 0) * 1000).toISOString()).slice(0, 10)

/**
 * What one write of a grant contributes to its program's figures: `before` absent for its INSERT.
 * An INSERT counts `made` and its shares on `createdAt`'s UTC day; a change of state counts the
 * new state on its newest transition line's day (`streamSeconds`, the stream's time, when it has
 * none); holders move by the difference between the images (so an address correction moves an
 * open grant's pending shares from the old address to the new).
 */
export const figureChangeOfWrite = (write: {
  sequenceNumber: string
  before: GrantRecord | undefined
  after: GrantRecord
  streamSeconds: number | undefined
}): FigureChange => {
  const { before, after, streamSeconds } = write
  const programId = after.programId
  const daily: DailyDelta[] = []
  if (before === undefined) {
    const counts = { made: 1, sharesIssued: after.amount, ...countsOfState(after, after.status) }
    daily.push({ programId, date: dayOf(after.createdAt, streamSeconds), counts })
  } else if (before.status !== after.status) {
    const line = after.history?.findLast((entry) => entry.event === 'transition')
    daily.push({
      programId,
      date: dayOf(line?.at, streamSeconds),
      counts: countsOfState(after, after.status),
    })
  }
  return {
    sequenceNumber: write.sequenceNumber,
    grantId: after.grantId,
    version: after.history?.length ?? 0,
    inserted: before === undefined,
    final: !isGrantOpen(after.status),
    holders: holderDeltas(programId, before, after),
    daily,
  }
}

/** Whether a change adds anything (a delivery line, a resend, a reminder's mark add nothing). */
export const isCounted = (change: FigureChange) =>
  change.holders.length > 0 || change.daily.length > 0

/**
 * The changes of a batch that count, in order, given the version counted so far per grant
 * (`counted`; absent: none). A change counts when it adds something and its version is above
 * what was counted (a redelivered record, or one a racing batch counted, adds nothing). A MODIFY
 * of a grant with nothing counted and no INSERT before it in the batch is a grant made before
 * figures were kept: counting only its later changes would be wrong, so it is left to a backfill.
 */
export const countedChanges = (
  changes: readonly FigureChange[],
  counted: ReadonlyMap<string, number>,
): FigureChange[] => {
  const known = new Map(counted)
  const out: FigureChange[] = []
  for (const change of changes) {
    if (!isCounted(change)) continue
    const seen = known.get(change.grantId)
    if (seen === undefined ? !change.inserted : change.version <= seen) continue
    known.set(change.grantId, change.version)
    out.push(change)
  }
  return out
}

/** Holder and daily deltas of several changes summed per item (one update per item and transaction). */
export const sumFigures = (changes: readonly FigureChange[]) => {
  const holders = new Map<string, HolderDelta>()
  const daily = new Map<string, DailyDelta>()
  for (const change of changes) {
    for (const h of change.holders) {
      const key = `${h.programId} ${h.recipientKey}`
      const sum = holders.get(key) ?? { ...h, accepted: 0, pending: 0 }
      sum.accepted += h.accepted
      sum.pending += h.pending
      holders.set(key, sum)
    }
    for (const d of change.daily) {
      const key = `${d.programId} ${d.date}`
      const sum = daily.get(key) ?? { ...d, counts: {} }
      for (const [name, n] of Object.entries(d.counts) as [DailyCounter, number][]) {
        sum.counts[name] = (sum.counts[name] ?? 0) + n
      }
      daily.set(key, sum)
    }
  }
  return {
    holders: [...holders.values()].filter((h) => h.accepted !== 0 || h.pending !== 0),
    daily: [...daily.values()],
  }
}

/**
 * Where a holders page stopped in each slot: `start` (nothing read yet), `done` (all read), or the
 * last holder shown from it (its accepted shares and address: the index's position).
 */
export type SlotPosition = 'start' | 'done' | { accepted: number; recipientKey: string }

const POSITION = /^(-|\.|\d{1,15}:\S{1,320})$/

/** Opaque to callers: the one cursor codec (page-cursor.ts) over one part per slot. */
export const encodeHoldersCursor = (positions: readonly SlotPosition[]) =>
  encodeCursor(
    ...positions.map((p) =>
      p === 'start' ? '-' : p === 'done' ? '.' : `${p.accepted}:${p.recipientKey}`,
    ),
  )

/** The positions a cursor stands for, or undefined when it is not one encodeHoldersCursor made. */
export const decodeHoldersCursor = (cursor: unknown): SlotPosition[] | undefined => {
  const patterns = Array.from({ length: HOLDER_SLOTS }, () => POSITION)
  const parts = decodeCursor(cursor, patterns, 4 * 330 * HOLDER_SLOTS)
  return parts?.map((part): SlotPosition => {
    if (part === '-') return 'start'
    if (part === '.') return 'done'
    const colon = part.indexOf(':')
    return { accepted: Number(part.slice(0, colon)), recipientKey: part.slice(colon + 1) }
  })
}
