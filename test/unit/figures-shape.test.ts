import {
  checkRange,
  type DayCounts,
  type DayFigures,
  funnelOf,
  outcomeRows,
  percentText,
  poolRows,
  presetOf,
  presetRange,
  summaries,
  utcToday,
} from '../../console/src/figures-shape'
import { DAILY_COUNTERS } from '../../functions/domain/figures'

/** The program page's figures shaped for its charts and tables (console/src/figures-shape.ts). */

/** A day's counts: zeros (one per counter the service keeps), `over` set. */
const counts = (over: Partial<DayCounts> = {}): DayCounts => ({
  ...(Object.fromEntries(DAILY_COUNTERS.map((name) => [name, 0])) as DayCounts),
  ...over,
})
const day = (date: string, over: Partial<DayCounts> = {}, remainingAtEnd: number | null = null) =>
  ({ date, ...counts(over), remainingAtEnd }) as DayFigures

describe('date ranges', () => {
  it('today is the UTC date; a preset is the last N days, both ends included', () => {
    expect(utcToday(new Date('2026-11-29T23:30:00-05:00'))).toBe('2026-11-30')
    expect(presetRange(30, '2026-11-29')).toEqual({ from: '2026-10-31', to: '2026-11-29' })
    expect(presetRange(365, '2024-12-31')).toEqual({ from: '2024-01-02', to: '2024-12-31' })
    expect(presetOf({ from: '2026-08-31', to: '2026-11-28' }, '2026-11-28')).toBe(90)
    expect(presetOf({ from: '2026-08-30', to: '2026-11-28' }, '2026-11-28')).toBeUndefined()
  })

  it('says what is wrong next to the field it is about', () => {
    expect(checkRange('2026-01-01', '2026-01-31')).toEqual({})
    expect(checkRange('2026-01-01', '2026-01-01')).toEqual({})
    expect(checkRange('', '2026-02-30')).toEqual({
      from: 'Enter the first day as a date (YYYY-MM-DD).',
      to: 'Enter the last day as a date (YYYY-MM-DD).',
    })
    expect(checkRange('2026-02-02', '2026-02-01')).toEqual({
      to: 'The last day must be on or after the first day.',
    })
    // 366 days is the API's bound (a leap year); 367 is not asked for.
    expect(checkRange('2024-01-01', '2024-12-31')).toEqual({})
    expect(checkRange('2024-01-01', '2025-01-01')).toEqual({
      to: 'A range holds at most 366 days.',
    })
  })
})

describe('chart series', () => {
  const days = [
    day(
      '2026-11-01',
      { made: 5, accepted: 2, declined: 1, ineligibleAge: 1, ineligibleCountry: 2 },
      90,
    ),
    day(
      '2026-11-02',
      { made: 0, expired: 3, canceled: 1, sharesIssued: 40, sharesReturned: 7 },
      57,
    ),
  ]

  it('grants per day by outcome: ineligible by age and by country together, every day kept', () => {
    expect(outcomeRows(days)).toEqual([
      {
        date: '2026-11-01',
        made: 5,
        accepted: 2,
        declined: 1,
        ineligible: 3,
        expired: 0,
        canceled: 0,
      },
      {
        date: '2026-11-02',
        made: 0,
        accepted: 0,
        declined: 0,
        ineligible: 0,
        expired: 3,
        canceled: 1,
      },
    ])
  })

  it('the pool per day: issued, returned and remaining at the end (null with no pool)', () => {
    expect(poolRows(days)).toEqual([
      { date: '2026-11-01', issued: 0, returned: 0, remaining: 90 },
      { date: '2026-11-02', issued: 40, returned: 7, remaining: 57 },
    ])
    expect(poolRows([day('2026-11-03')])[0]?.remaining).toBeNull()
  })

  it('the funnel: made, offered, accepted and each reason, as exact shares of those made', () => {
    const funnel = funnelOf(
      counts({ made: 3, offered: 2, accepted: 1, declined: 1, ineligibleAge: 0, expired: 4 }),
    )
    expect(funnel.steps.map((s) => [s.label, s.count, s.ofMade])).toEqual([
      ['Made', 3, '100%'],
      ['Offered', 2, '66.67%'],
      ['Accepted', 1, '33.33%'],
    ])
    expect(funnel.reasons.map((s) => [s.label, s.count, s.ofMade])).toEqual([
      ['Declined', 1, '33.33%'],
      ['Ineligible: age', 0, '0%'],
      ['Ineligible: country', 0, '0%'],
      ['Expired', 4, '133.33%'],
      ['Canceled', 0, '0%'],
    ])
    // Nothing made in the range: no share to give.
    expect(funnelOf(counts({ offered: 2 })).steps[1]).toMatchObject({ count: 2, ofMade: '' })
  })

  it('each chart summed up in a sentence (the canvas name)', () => {
    const said = summaries({ from: '2026-11-01', to: '2026-11-02' }, days, counts({ made: 5 }))
    expect(said.outcomes).toBe(
      'Grants per day by outcome, from 2026-11-01 to 2026-11-02: 5 grants made; 2 accepted, 1 declined, 3 ineligible, 3 expired, 1 canceled.',
    )
    expect(said.funnel).toContain('5 made, then 0 offered, then 0 accepted')
    expect(said.pool).toBe(
      'Pool over time, from 2026-11-01 to 2026-11-02: 40 shares issued, 7 shares returned, 57 shares remaining at the end.',
    )
  })
})

it('a fraction as a percentage, exactly', () => {
  expect(percentText('0.0125')).toBe('1.25%')
  expect(percentText('1')).toBe('100%')
  expect(percentText('0')).toBe('0%')
  expect(percentText('0.5')).toBe('50%')
  expect(percentText('0.000001')).toBe('0.0001%')
  expect(percentText('12.3456')).toBe('1234.56%')
  expect(percentText(null)).toBe('')
})
