import { IssuerProgramNotFound, ServiceUnavailable, ValidationFailed } from '../domain/errors'
import { DAILY_COUNTERS } from '../domain/figures'
import { ownedBy, type ProgramRecord } from '../domain/program'
import { poolRemaining } from '../domain/program-shards'
import { fractionOf, valueOfShares } from '../domain/share-value'
import type { DailyFigure, FiguresReader, HolderFigure } from '../stores/figures.store'
import type { CallOptions, GrantStore } from '../stores/grants.store'

/**
 * A program's holders and daily figures for its issuer's people (issue 32): read from the figures
 * the grants table's stream keeps (stores/figures.store.ts), never from a scan of the grants. The
 * value of shares is the program's current value per share, multiplied exactly (share-value.ts).
 */

export type ProgramFiguresDeps = {
  readonly programs: Pick<GrantStore, 'findProgram'>
  readonly figures: FiguresReader
  /** Wall clock (ms): which day is today, for the pool line after the range. */
  readonly clock: () => number
}

/** The pool now: its size (null: unlimited), the shares issued, what is left (null: unlimited). */
export type PoolNow = { size: number | null; issued: number; remaining: number | null }

/** One holder as the management API shows them. */
export type HolderView = HolderFigure & {
  /** accepted ÷ pool, a decimal string to 4 places; null for a program without a pool. */
  shareOfPool: string | null
  /** accepted × the current value per share, exactly; null while the program has no value. */
  value: string | null
}

/** What a page of holders is shown with: the program's value and pool now. */
export type HoldersAnswer = {
  programId: string
  items: HolderView[]
  nextCursor: string | undefined
  tokenValue: string | null
  tokenValueCurrency: string | null
  pool: PoolNow
}

/** The counts of a day, without its date: also the range's totals. */
export type FigureCounts = Omit<DailyFigure, 'date'>
export type DayView = DailyFigure & { remainingAtEnd: number | null }
export type DailyAnswer = {
  programId: string
  from: string
  to: string
  days: DayView[]
  totals: FigureCounts
  pool: PoolNow
}

/** The most days one read of daily figures may show (a leap year). */
export const MAX_RANGE_DAYS = 366

/** The counts of a day, in the order they are shown (domain/figures.ts). */
const COUNT_NAMES = DAILY_COUNTERS satisfies readonly (keyof FigureCounts)[]

const DAY_MS = 86_400_000
const DATE = /^\d{4}-\d{2}-\d{2}$/

/** Milliseconds of a real calendar date `YYYY-MM-DD` (UTC midnight), else undefined. */
const dayOf = (text: string | undefined): number | undefined => {
  if (text === undefined || !DATE.test(text)) return undefined
  const ms = Date.parse(`${text}T00:00:00Z`)
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text ? undefined : ms
}

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/**
 * `from..to`, both required real dates, from ≤ to, at most MAX_RANGE_DAYS days: every problem at
 * once as one 400, before any read.
 */
export const checkDateRange = (from: string | undefined, to: string | undefined) => {
  const errors: { field: string; message: string }[] = []
  const start = dayOf(from)
  const end = dayOf(to)
  if (start === undefined) errors.push({ field: 'from', message: 'from must be a date YYYY-MM-DD' })
  if (end === undefined) errors.push({ field: 'to', message: 'to must be a date YYYY-MM-DD' })
  if (start !== undefined && end !== undefined) {
    if (start > end) errors.push({ field: 'to', message: 'to must not be before from' })
    else if ((end - start) / DAY_MS + 1 > MAX_RANGE_DAYS) {
      errors.push({ field: 'to', message: `a range has at most ${MAX_RANGE_DAYS} days` })
    }
  }
  if (errors.length > 0 || start === undefined || end === undefined) {
    throw new ValidationFailed(errors)
  }
  return { from: dateOf(start), to: dateOf(end), start, end }
}

const zeroCounts = (): FigureCounts =>
  Object.fromEntries(COUNT_NAMES.map((name) => [name, 0])) as FigureCounts

const countsOf = (figure: FigureCounts): FigureCounts =>
  Object.fromEntries(COUNT_NAMES.map((name) => [name, figure[name] ?? 0])) as FigureCounts

export const poolNow = (program: Pick<ProgramRecord, 'pool' | 'issued'>): PoolNow => ({
  size: program.pool ?? null,
  issued: program.issued ?? 0,
  remaining: poolRemaining(program.pool, program.issued),
})

/** One holder with their share of the pool and the value of their accepted shares. */
export const holderView = (holder: HolderFigure, pool: number | undefined, amount?: string) => ({
  email: holder.email,
  accepted: holder.accepted,
  pending: holder.pending,
  shareOfPool: pool === undefined ? null : fractionOf(holder.accepted, pool),
  value: amount === undefined ? null : valueOfShares(holder.accepted, amount),
})

/**
 * Every day of `start..end` (days without figures are zeros), with what was left of the pool at
 * the end of each: what is left now plus the net shares issued on every later day (`later`: the
 * figures of the days after `end`, up to now). Null throughout for a program without a pool.
 */
export const dailyView = (
  range: { start: number; end: number },
  figures: readonly DailyFigure[],
  remainingNow: number | null,
): { days: DayView[]; totals: FigureCounts } => {
  const byDate = new Map<string, FigureCounts>()
  let netAfter = 0
  const endDate = dateOf(range.end)
  for (const figure of figures) {
    if (figure.date > endDate) netAfter += figure.sharesIssued - figure.sharesReturned
    else byDate.set(figure.date, countsOf(figure))
  }
  const totals = zeroCounts()
  const days: DayView[] = []
  for (let ms = range.start; ms <= range.end; ms += DAY_MS) {
    const date = dateOf(ms)
    const counts = byDate.get(date) ?? zeroCounts()
    for (const name of COUNT_NAMES) totals[name] += counts[name]
    days.push({ date, ...counts, remainingAtEnd: null })
  }
  // Backwards from now: the end of a day is the end of the next day plus what that day took.
  let remaining = remainingNow === null ? null : remainingNow + netAfter
  for (let i = days.length - 1; i >= 0; i--) {
    const day = days[i] as DayView
    day.remainingAtEnd = remaining
    if (remaining !== null) remaining += day.sharesIssued - day.sharesReturned
  }
  return { days, totals }
}

/** The program's holders and daily figures, for a member of `issuerId` (the route checked it). */
export const makeProgramFigures = ({ programs, figures, clock }: ProgramFiguresDeps) => {
  /** The issuer's program; a missing one and another issuer's answer the same 404. */
  const programOf = async (issuerId: string, programId: string, options: CallOptions) => {
    const program = await programs.findProgram(programId, options)
    if (!ownedBy(program, issuerId)) throw new IssuerProgramNotFound(programId)
    return program
  }

  /** One page of the program's holders, with its value and pool. */
  const pageOf = async (
    program: ProgramRecord,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<HoldersAnswer> => {
    const read = await figures.holdersPage(
      program.programId,
      page.cursor === undefined
        ? { limit: page.limit }
        : { limit: page.limit, cursor: page.cursor },
    )
    if (read === 'unavailable') throw new ServiceUnavailable()
    if (read === 'invalid_cursor') {
      throw new ValidationFailed([
        { field: 'cursor', message: 'cursor must be the nextCursor of a previous page' },
      ])
    }
    const amount = program.value?.amount
    return {
      programId: program.programId,
      items: read.items.map((holder) => holderView(holder, program.pool, amount)),
      nextCursor: read.nextCursor,
      tokenValue: amount ?? null,
      tokenValueCurrency: program.value?.currency ?? null,
      pool: poolNow(program),
    }
  }

  return {
    /** One page of holders, most accepted shares first. */
    holders: async (
      issuerId: string,
      programId: string,
      page: { limit: number; cursor?: string | undefined },
      options: CallOptions = {},
    ): Promise<HoldersAnswer> => pageOf(await programOf(issuerId, programId, options), page),

    /**
     * Every page of holders from `cursor` on (pages of `limit`), the program read once: the
     * caller stops when it has enough and goes on later from the last page's `nextCursor`.
     */
    holderPages: async function* (
      issuerId: string,
      programId: string,
      page: { limit: number; cursor?: string | undefined },
      options: CallOptions = {},
    ): AsyncGenerator<HoldersAnswer> {
      const program = await programOf(issuerId, programId, options)
      let cursor = page.cursor
      do {
        const answer = await pageOf(program, { limit: page.limit, cursor })
        yield answer
        cursor = answer.nextCursor
      } while (cursor !== undefined)
    },

    /** Every day of `from..to` (checked: checkDateRange), its totals and the pool over it. */
    daily: async (
      issuerId: string,
      programId: string,
      range: { from: string | undefined; to: string | undefined },
      options: CallOptions = {},
    ): Promise<DailyAnswer> => {
      const checked = checkDateRange(range.from, range.to)
      const program = await programOf(issuerId, programId, options)
      const pool = poolNow(program)
      // The days after the range up to today are read too when the program has a pool: the line
      // is derived backwards from what is left now.
      const today = dateOf(clock())
      const until = pool.remaining !== null && today > checked.to ? today : checked.to
      const read = await figures.dailyFigures(program.programId, checked.from, until)
      if (read === 'unavailable') throw new ServiceUnavailable()
      return {
        programId: program.programId,
        from: checked.from,
        to: checked.to,
        ...dailyView(checked, read, pool.remaining),
        pool,
      }
    },
  }
}

export type ProgramFigures = ReturnType<typeof makeProgramFigures>
