import { fractionOf } from '../../functions/domain/share-value'

/**
 * The program page's figures shaped for its charts and their tables (issue 32): pure, so the
 * charts and the tables show the same numbers, and a unit test checks them without a browser.
 */

/** What a day (or a range's totals) counts. */
export type DayCounts = Record<
  | 'made'
  | 'offered'
  | 'accepted'
  | 'declined'
  | 'ineligibleAge'
  | 'ineligibleCountry'
  | 'expired'
  | 'canceled'
  | 'sharesIssued'
  | 'sharesAccepted'
  | 'sharesReturned',
  number
>

export type DayFigures = DayCounts & { date: string; remainingAtEnd: number | null }

/** The most days one range may hold (the API's bound). */
export const MAX_RANGE_DAYS = 366
export const RANGE_PRESETS = [30, 90, 365] as const

const DAY_MS = 86_400_000
const DATE = /^\d{4}-\d{2}-\d{2}$/

/** A UTC date (`YYYY-MM-DD`) as epoch days, or undefined for anything that is not a real date. */
const epochDay = (date: string): number | undefined => {
  if (!DATE.test(date)) return undefined
  const time = Date.parse(`${date}T00:00:00Z`)
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== date) return undefined
  return time / DAY_MS
}

const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10)

/** Today as the API dates days: in UTC. */
export const utcToday = (now = new Date()) => now.toISOString().slice(0, 10)

/** The last `days` days up to `today`, both ends included. */
export const presetRange = (days: number, today: string) => ({
  from: dateOf((epochDay(today) ?? 0) - (days - 1)),
  to: today,
})

/** Which preset a range is, if any (the pressed preset button). */
export const presetOf = (range: { from: string; to: string }, today: string) =>
  RANGE_PRESETS.find((days) => {
    const preset = presetRange(days, today)
    return preset.from === range.from && preset.to === range.to
  })

/** What is wrong with a range, field by field (empty when it can be asked for). */
export const checkRange = (from: string, to: string): { from?: string; to?: string } => {
  const start = epochDay(from)
  const end = epochDay(to)
  const errors: { from?: string; to?: string } = {}
  if (start === undefined) errors.from = 'Enter the first day as a date (YYYY-MM-DD).'
  if (end === undefined) errors.to = 'Enter the last day as a date (YYYY-MM-DD).'
  if (start === undefined || end === undefined) return errors
  if (start > end) return { to: 'The last day must be on or after the first day.' }
  if (end - start + 1 > MAX_RANGE_DAYS) {
    return { to: `A range holds at most ${MAX_RANGE_DAYS} days.` }
  }
  return {}
}

/** The outcomes a day's grants came to, as the first chart stacks them. */
export const OUTCOMES = [
  { key: 'accepted', label: 'Accepted' },
  { key: 'declined', label: 'Declined' },
  { key: 'ineligible', label: 'Ineligible' },
  { key: 'expired', label: 'Expired' },
  { key: 'canceled', label: 'Canceled' },
] as const
export type OutcomeKey = (typeof OUTCOMES)[number]['key']

export type OutcomeRow = { date: string; made: number } & Record<OutcomeKey, number>

/** Grants per day: made, and each outcome (ineligible by age or country counted together). */
export const outcomeRows = (days: DayFigures[]): OutcomeRow[] =>
  days.map((day) => ({
    date: day.date,
    made: day.made,
    accepted: day.accepted,
    declined: day.declined,
    ineligible: day.ineligibleAge + day.ineligibleCountry,
    expired: day.expired,
    canceled: day.canceled,
  }))

/** A fraction written as a percentage, exactly: "0.0125" -> "1.25%", "1" -> "100%". */
export const percentText = (fraction: string | null): string => {
  if (fraction === null) return ''
  const [whole = '0', decimals = ''] = fraction.split('.')
  const digits = `${whole}${decimals.padEnd(2, '0')}`
  const point = whole.length + 2
  const integer = digits.slice(0, point).replace(/^0+(?=\d)/, '')
  const rest = digits.slice(point).replace(/0+$/, '')
  return `${integer}${rest ? `.${rest}` : ''}%`
}

export type FunnelStep = { key: keyof DayCounts; label: string; count: number; ofMade: string }

/**
 * The acceptance funnel over a range's totals: made -> offered -> accepted, and why the rest went
 * (declined, ineligible by age or by country, expired, canceled), each as a share of those made.
 * A range counts each event on its own day, so grants made before it can be offered or accepted
 * in it: a share of those made can pass 100%.
 */
export const funnelOf = (totals: DayCounts) => {
  const step = (key: keyof DayCounts, label: string): FunnelStep => ({
    key,
    label,
    count: totals[key],
    ofMade: totals.made === 0 ? '' : percentText(fractionOf(totals[key], totals.made, 4)),
  })
  return {
    steps: [step('made', 'Made'), step('offered', 'Offered'), step('accepted', 'Accepted')],
    reasons: [
      step('declined', 'Declined'),
      step('ineligibleAge', 'Ineligible: age'),
      step('ineligibleCountry', 'Ineligible: country'),
      step('expired', 'Expired'),
      step('canceled', 'Canceled'),
    ],
  }
}

export type PoolRow = {
  date: string
  issued: number
  returned: number
  remaining: number | null
}

/** The pool per day: shares issued and returned that day, and what remained at its end. */
export const poolRows = (days: DayFigures[]): PoolRow[] =>
  days.map((day) => ({
    date: day.date,
    issued: day.sharesIssued,
    returned: day.sharesReturned,
    remaining: day.remainingAtEnd,
  }))

const sum = (rows: { [key: string]: unknown }[], key: string) =>
  rows.reduce((total, row) => total + (typeof row[key] === 'number' ? (row[key] as number) : 0), 0)

const count = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`

/** What each chart shows, in a sentence: the canvas's accessible name. */
export const summaries = (
  range: { from: string; to: string },
  days: DayFigures[],
  totals: DayCounts,
) => {
  const span = `from ${range.from} to ${range.to}`
  const outcomes = outcomeRows(days)
  const funnel = funnelOf(totals)
  const pool = poolRows(days)
  const last = pool.at(-1)?.remaining
  return {
    outcomes: `Grants per day by outcome, ${span}: ${count(sum(outcomes, 'made'), 'grant')} made; ${OUTCOMES.map(
      (o) => `${sum(outcomes, o.key).toLocaleString('en-US')} ${o.label.toLowerCase()}`,
    ).join(', ')}.`,
    funnel: `Acceptance funnel, ${span}: ${funnel.steps
      .map((s) => `${s.count.toLocaleString('en-US')} ${s.label.toLowerCase()}`)
      .join(', then ')}; not accepted: ${funnel.reasons
      .map((s) => `${s.count.toLocaleString('en-US')} ${s.label.toLowerCase()}`)
      .join(', ')}.`,
    pool: `Pool over time, ${span}: ${count(sum(pool, 'issued'), 'share')} issued, ${count(
      sum(pool, 'returned'),
      'share',
    )} returned${last === undefined || last === null ? ', no pool limit' : `, ${count(last, 'share')} remaining at the end`}.`,
  }
}
