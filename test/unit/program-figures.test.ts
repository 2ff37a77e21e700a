import { checkDateRange, makeProgramFigures } from '../../functions/core/program-figures'
import type { ProgramRecord } from '../../functions/domain/program'
import type { DailyFigure, FiguresReader, HoldersPage } from '../../functions/stores/figures.store'

/** The figures use case's arithmetic, over a program and figures given in memory. */

const [ISSUER, PROGRAM] = ['iss_01jd0000000000000000000000', 'prg_01jd0000000000000000000000']

const program = (over: Partial<ProgramRecord> = {}): ProgramRecord => ({
  programId: PROGRAM,
  issuerId: ISSUER,
  mode: 'TEST',
  name: 'Plan',
  status: 'active',
  pool: 1_000,
  issued: 300,
  createdAt: '2026-01-01T00:00:00.000Z',
  ...over,
})

const day = (date: string, over: Partial<DailyFigure> = {}): DailyFigure => ({
  date,
  made: 0,
  offered: 0,
  accepted: 0,
  declined: 0,
  ineligibleAge: 0,
  ineligibleCountry: 0,
  expired: 0,
  canceled: 0,
  sharesIssued: 0,
  sharesAccepted: 0,
  sharesReturned: 0,
  ...over,
})

const setup = (
  record: ProgramRecord | undefined,
  data: { holders?: HoldersPage | 'invalid_cursor'; days?: DailyFigure[] } = {},
  now = Date.parse('2026-03-10T12:00:00Z'),
) => {
  const calls: { from: string; to: string }[] = []
  const figures: FiguresReader = {
    holdersPage: async () => data.holders ?? { items: [] },
    dailyFigures: async (_id, from, to) => {
      calls.push({ from, to })
      return (data.days ?? []).filter((d) => d.date >= from && d.date <= to)
    },
  }
  const use = makeProgramFigures({
    programs: { findProgram: async () => record },
    figures,
    clock: () => now,
  })
  return { use, calls }
}

describe('holders', () => {
  const page: HoldersPage = {
    items: [
      { email: 'a@example.com', accepted: 3, pending: 7 },
      { email: 'b@example.com', accepted: 1, pending: 0 },
    ],
    nextCursor: 'next',
  }

  test('share of the pool is accepted ÷ pool, value is exact at the current value', async () => {
    const value = {
      valueId: 'v1',
      amount: '0.10',
      currency: 'EUR',
      asOf: '2026-03-01',
      setAt: '2026-03-01T00:00:00Z',
    }
    const { use } = setup(program({ pool: 3, issued: 3, value }), { holders: page })
    const answer = await use.holders(ISSUER, PROGRAM, { limit: 2 })
    expect(answer.items).toEqual([
      { email: 'a@example.com', accepted: 3, pending: 7, shareOfPool: '1.0000', value: '0.30' },
      { email: 'b@example.com', accepted: 1, pending: 0, shareOfPool: '0.3333', value: '0.10' },
    ])
    expect(answer).toMatchObject({
      nextCursor: 'next',
      tokenValue: '0.10',
      tokenValueCurrency: 'EUR',
      pool: { size: 3, issued: 3, remaining: 0 },
    })
  })

  test('no pool and no value: nulls, not zeros', async () => {
    const { pool: _, ...unlimited } = program()
    const { use } = setup(unlimited, { holders: page })
    const answer = await use.holders(ISSUER, PROGRAM, { limit: 2 })
    expect(answer.items[0]).toMatchObject({ shareOfPool: null, value: null })
    expect(answer).toMatchObject({
      tokenValue: null,
      tokenValueCurrency: null,
      pool: { size: null, issued: 300, remaining: null },
    })
  })

  test("another issuer's program and a missing one: the same 404", async () => {
    for (const record of [program({ issuerId: 'iss_01jdzzzzzzzzzzzzzzzzzzzzzz' }), undefined]) {
      await expect(setup(record).use.holders(ISSUER, PROGRAM, { limit: 5 })).rejects.toMatchObject({
        code: 'program_not_found',
      })
    }
  })

  test('a cursor the store did not make: 400 on the cursor', async () => {
    const { use } = setup(program(), { holders: 'invalid_cursor' })
    await expect(use.holders(ISSUER, PROGRAM, { limit: 5, cursor: 'x' })).rejects.toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'cursor' }],
    })
  })
})

describe('daily', () => {
  test('every day of the range, zeros where nothing happened, and the totals', async () => {
    const days = [
      day('2026-03-02', { made: 2, sharesIssued: 20, offered: 2 }),
      day('2026-03-04', { accepted: 1, sharesAccepted: 10, canceled: 1, sharesReturned: 10 }),
    ]
    const { use } = setup(program(), { days })
    const answer = await use.daily(ISSUER, PROGRAM, { from: '2026-03-01', to: '2026-03-05' })
    expect(answer.days.map((d) => d.date)).toEqual([
      '2026-03-01',
      '2026-03-02',
      '2026-03-03',
      '2026-03-04',
      '2026-03-05',
    ])
    expect(answer.days[0]).toEqual({ ...day('2026-03-01'), remainingAtEnd: expect.any(Number) })
    const { date: _, ...zeros } = day('')
    expect(answer.totals).toEqual({
      ...zeros,
      made: 2,
      offered: 2,
      sharesIssued: 20,
      accepted: 1,
      sharesAccepted: 10,
      canceled: 1,
      sharesReturned: 10,
    })
  })

  test('remaining at the end of a day: remaining now plus the net issued on every later day', async () => {
    // Pool 1,000, 300 issued now: 700 left. Later days, after the range, count too.
    const days = [
      day('2026-03-02', { sharesIssued: 100 }),
      day('2026-03-03', { sharesIssued: 50, sharesReturned: 30 }),
      day('2026-03-08', { sharesIssued: 40, sharesReturned: 5 }),
      day('2026-03-10', { sharesIssued: 10 }),
    ]
    const { use, calls } = setup(program({ pool: 1_000, issued: 300 }), { days })
    const answer = await use.daily(ISSUER, PROGRAM, { from: '2026-03-01', to: '2026-03-04' })
    // After the range: (40 - 5) + 10 = 45, so at the end of 03-04: 745.
    expect(answer.days.map((d) => [d.date, d.remainingAtEnd])).toEqual([
      ['2026-03-01', 865],
      ['2026-03-02', 765],
      ['2026-03-03', 745],
      ['2026-03-04', 745],
    ])
    expect(calls).toEqual([{ from: '2026-03-01', to: '2026-03-10' }])
    expect(answer.pool).toEqual({ size: 1_000, issued: 300, remaining: 700 })
    expect(answer.totals).toMatchObject({ sharesIssued: 150, sharesReturned: 30 })
  })

  test('no pool: no line, and no read past the range', async () => {
    const { pool: _, ...unlimited } = program()
    const { use, calls } = setup(unlimited, { days: [day('2026-03-02', { sharesIssued: 5 })] })
    const answer = await use.daily(ISSUER, PROGRAM, { from: '2026-03-01', to: '2026-03-02' })
    expect(answer.days.map((d) => d.remainingAtEnd)).toEqual([null, null])
    expect(calls).toEqual([{ from: '2026-03-01', to: '2026-03-02' }])
  })

  test('a range ending after today reads no further than the range', async () => {
    const { use, calls } = setup(program())
    await use.daily(ISSUER, PROGRAM, { from: '2026-03-09', to: '2026-03-20' })
    expect(calls).toEqual([{ from: '2026-03-09', to: '2026-03-20' }])
  })

  test('bad ranges: 400 before any read, each problem named', async () => {
    const cases: [string | undefined, string | undefined, string[]][] = [
      [undefined, undefined, ['from', 'to']],
      ['2026-02-30', '2026-03-01', ['from']],
      ['2026-3-1', '2026-03-01', ['from']],
      ['2026-03-02', '2026-03-01', ['to']],
      ['2025-01-01', '2026-01-02', ['to']],
    ]
    for (const [from, to, fields] of cases) {
      const { use, calls } = setup(program())
      await expect(use.daily(ISSUER, PROGRAM, { from, to })).rejects.toMatchObject({
        code: 'validation_failed',
        errors: fields.map((field) => ({ field })),
      })
      expect(calls).toEqual([])
    }
  })

  test('366 days is the longest range; a leap day is a real date', () => {
    expect(checkDateRange('2024-01-01', '2024-12-31')).toMatchObject({ from: '2024-01-01' })
    expect(checkDateRange('2024-02-29', '2024-02-29')).toMatchObject({ to: '2024-02-29' })
    expect(() => checkDateRange('2023-02-29', '2023-03-01')).toThrow('from')
  })
})
