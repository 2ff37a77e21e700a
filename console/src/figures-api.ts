import { type CsvPage, request } from './api'
import type { DayCounts, DayFigures } from './figures-shape'

/**
 * The management API's figures of one program (issue 32): its holders, as a page or the CSV
 * export, and its daily figures over a date range. Kept apart from api.ts so only the program
 * page's figures section carries them.
 */

/** One holder: accepted and pending shares, their share of the pool and value (decimal strings). */
export type Holder = {
  email: string
  accepted: number
  pending: number
  /** A decimal fraction ("0.0125"); null when the pool is unlimited. */
  shareOfPool: string | null
  /** The accepted shares at the current value per share; null when no value is set. */
  value: string | null
}

/** The pool now: its size, the shares issued and left (null sizes: no pool). */
export type Pool = { size: number | null; issued: number; remaining: number | null }

export type HoldersPage = {
  object: 'list'
  data: Holder[]
  nextCursor: string | null
  tokenValue: string | null
  tokenValueCurrency: string | null
  pool: Pool
}

export type DailyFigures = {
  object: 'daily_figures'
  programId: string
  from: string
  to: string
  /** Every day of the range, oldest first. */
  days: DayFigures[]
  totals: DayCounts
  pool: Pool
}

const params = (values: Record<string, string | number | undefined>) => {
  const set = Object.entries(values).filter(
    (entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '',
  )
  return set.length === 0 ? '' : `?${new URLSearchParams(set.map(([k, v]) => [k, String(v)]))}`
}

/** The figures of one program of one issuer. */
export const figuresApi = (issuerId: string, programId: string) => {
  const program = `/manage/issuers/${encodeURIComponent(issuerId)}/programs/${encodeURIComponent(programId)}`
  return {
    holders: async (page: { limit: number; cursor?: string | undefined }) =>
      (await (await request('GET', `${program}/holders${params(page)}`)).json()) as HoldersPage,
    /** The holders as CSV; a next page's cursor in `x-next-cursor` if the service pages it. */
    holdersCsv: async (cursor: string | undefined): Promise<CsvPage> => {
      const response = await request('GET', `${program}/holders${params({ cursor })}`, {
        accept: 'text/csv',
      })
      return { csv: await response.text(), next: response.headers.get('x-next-cursor') }
    },
    daily: async (range: { from: string; to: string }) =>
      (await (await request('GET', `${program}/daily${params(range)}`)).json()) as DailyFigures,
  }
}

export type FiguresApi = ReturnType<typeof figuresApi>
