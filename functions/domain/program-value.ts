import type { Mode } from './api-key'
import { ValidationFailed } from './errors'
import { idPattern } from './ids'
import { decodeCursor, encodeCursor, ISO_TIME } from './page-cursor'

/**
 * The value of a program's share (issue 32, docs/decisions/share-value.md): each change is an
 * entry of the program's value history, and the program's head keeps the current one, the entry
 * with the latest `asOf` (on the same date, the one set last). Amounts stay decimal strings
 * (share-value.ts), never floats. Pure: no SDK, no HTTP.
 */

/** The longest note on the method (characters, trimmed). */
export const MAX_METHOD_LENGTH = 500

/** What the program's head keeps of its current value (read by every door that shows a value). */
export type ProgramValueHead = {
  valueId: string
  amount: string
  currency: string
  /** YYYY-MM-DD: the date the value was calculated. */
  asOf: string
  /** ISO time it was set. */
  setAt: string
}

/** One entry of a program's value history. */
export type ProgramValueEntry = ProgramValueHead & {
  programId: string
  /** How it was calculated; absent: not said. */
  method?: string
  /** The member's e-mail address (as the audit log names them), or the operator. */
  setBy: string
}

/** The history's sort key: newest `asOf` first, then the latest set, then the id (unique). */
export const valueSortKey = (entry: Pick<ProgramValueHead, 'asOf' | 'setAt' | 'valueId'>) =>
  `${entry.asOf}#${entry.setAt}#${entry.valueId}`

/** The history's partition in the figures table (functions/table-schema.ts). */
export const valuesPartition = (programId: string) => `values#${programId}`

/** Whether `entry` takes the place of `current` as the program's value (none yet: it does). */
export const becomesCurrent = (
  entry: Pick<ProgramValueHead, 'asOf' | 'setAt' | 'valueId'>,
  current: Pick<ProgramValueHead, 'asOf' | 'setAt' | 'valueId'> | undefined,
) => current === undefined || valueSortKey(entry) >= valueSortKey(current)

const DATE = /^\d{4}-\d\d-\d\d$/

/** A real calendar date written YYYY-MM-DD (not 2026-02-30). */
export const isCalendarDate = (text: string) => {
  if (!DATE.test(text)) return false
  const time = Date.parse(`${text}T00:00:00.000Z`)
  return Number.isFinite(time) && new Date(time).toISOString().slice(0, 10) === text
}

/**
 * The latest "as of" date allowed at `now`: the date it already is somewhere on Earth (UTC+14,
 * Kiritimati), so a value calculated "today" is never refused for a time zone.
 */
export const latestAsOf = (now: number) =>
  new Date(now + 14 * 60 * 60 * 1000).toISOString().slice(0, 10)

let currencies: ReadonlySet<string> | undefined

/** An ISO 4217 code this runtime knows (three upper-case letters, e.g. EUR, USD, CHF). */
export const isCurrency = (text: string) => {
  currencies ??= new Set(Intl.supportedValuesOf('currency'))
  return /^[A-Z]{3}$/.test(text) && currencies.has(text)
}

/** Refuses an "as of" date after latestAsOf (the body's schema checked its format). */
export const checkAsOfNotFuture = (asOf: string, now: number) => {
  const latest = latestAsOf(now)
  if (asOf > latest) {
    throw new ValidationFailed([
      {
        field: 'asOf',
        message: `asOf must not be in the future (at most ${latest}, the date it already is somewhere on Earth)`,
      },
    ])
  }
}

/** The grants table's key prefix of a value change's outbox item (`value#<programId>#<valueId>`). */
export const VALUE_OUTBOX_PREFIX = 'value#'

/**
 * The outbox item a value change puts in the grants table, in its own transaction: the table's
 * stream carries it to GrantStream, which makes `program.value_changed` of its INSERT
 * (core/webhook-events.ts). The programs table has no stream. `program`, not `programId`, as a
 * batch item: no item of the grants table but a grant may be in its by-program indexes.
 * Purged after `purgeAt` (the table's TTL, seconds).
 */
export type ProgramValueOutboxItem = Omit<ProgramValueEntry, 'programId' | 'setBy'> & {
  grantId: string
  itemType: 'programValue'
  issuerId: string
  program: string
  mode: Mode
  /** Whether the entry became the program's value (a backdated one does not). */
  current: boolean
  purgeAt: number
}

/** How long the outbox item stays after its stream record was read (twice its 24 h retention). */
export const VALUE_OUTBOX_DAYS = 2

export const valueOutboxItem = (
  { programId, setBy: _, ...entry }: ProgramValueEntry,
  context: { issuerId: string; mode: Mode; current: boolean; now: number },
): ProgramValueOutboxItem => ({
  ...entry,
  grantId: `${VALUE_OUTBOX_PREFIX}${programId}#${entry.valueId}`,
  itemType: 'programValue',
  issuerId: context.issuerId,
  program: programId,
  mode: context.mode,
  current: context.current,
  purgeAt: Math.floor(context.now / 1000) + VALUE_OUTBOX_DAYS * 24 * 60 * 60,
})

/** Where a page of the history ends: the last entry's sort key parts. */
export type ValuePosition = Pick<ProgramValueHead, 'asOf' | 'setAt' | 'valueId'>

/** The history's opaque cursor (domain/page-cursor.ts): the last entry's position. */
export const encodeValueCursor = (entry: ValuePosition) =>
  encodeCursor(entry.asOf, entry.setAt, entry.valueId)

/** The position a cursor stands for, or undefined when it is not one encodeValueCursor made. */
export const decodeValueCursor = (cursor: unknown): ValuePosition | undefined => {
  const parts = decodeCursor(cursor, [DATE, ISO_TIME, idPattern('value')], 120)
  return parts === undefined ? undefined : { asOf: parts[0], setAt: parts[1], valueId: parts[2] }
}
