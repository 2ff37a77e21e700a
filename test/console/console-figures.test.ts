import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import type { Browser, Locator, Page } from 'playwright-core'
import { drainNpmStart } from '../support/pipeline'
import {
  type ConsoleServer,
  checkPage,
  DOCS,
  downloadedText,
  SET_UP_MS,
  signedInMember,
  startOwnServerAndBrowser,
  tabTo,
  visible,
  watchConsole,
} from './browser'

/**
 * The program page's holders and daily figures (issue 32), in Chromium against a real `npm start`:
 * a program of its own with grants made through the API and moved (accepted, declined, ineligible,
 * expired, canceled) by the TEST transition route, its figures kept by npm start's stream reader.
 * A viewer sees the holders exactly as the API lists them, pages on with "More", exports them as
 * CSV; the three charts are drawn (their canvases hold pixels) and their tables hold the API's
 * numbers; axe passes. Screenshots of both sections go to docs/.
 */
// What page.evaluate callbacks read in the browser: the root tsconfig has Node's types, not the DOM's.
type CanvasLike = {
  width: number
  height: number
  getContext(kind: '2d'): { getImageData(...a: number[]): { data: ArrayLike<number> } } | null
}

let server: ConsoleServer
let browser: Browser

beforeAll(async () => {
  // A server of its own: the test moves its clock a day at a time.
  ;({ server, browser } = await startOwnServerAndBrowser())
}, SET_UP_MS)

type Holder = {
  email: string
  accepted: number
  pending: number
  shareOfPool: string | null
  value: string | null
}
type Daily = {
  from: string
  to: string
  days: ({ date: string; remainingAtEnd: number | null } & Record<string, number>)[]
  totals: Record<string, number>
}

/** The management API as the member's token reads it. */
const manage = async <T>(token: string, path: string, init: RequestInit = {}) => {
  const response = await fetch(`${server.baseUrl}/manage/issuers/${server.seed.issuerId}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(init.headers as Record<string, string>),
    },
  })
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`)
  return (await response.json()) as T
}

/** A TEST grant through the integrator API, moved on by the TEST transition route. */
const grant = async (programId: string, email: string, amount: number) => {
  const made = await fetch(`${server.baseUrl}/programs/${programId}/grant-tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': server.seed.keys.TEST },
    body: JSON.stringify({ recipient: { email }, reason: 'Figures', amount }),
  })
  expect(made.status).toBe(201)
  return ((await made.json()) as { id: string }).id
}
const move = async (programId: string, grantId: string, to: string, reason?: string) => {
  const moved = await fetch(
    `${server.baseUrl}/programs/${programId}/grants/${grantId}/test-transition`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.seed.keys.TEST },
      body: JSON.stringify({ to, ...(reason ? { reason } : {}) }),
    },
  )
  expect(moved.status).toBe(200)
}

/** A table's body as text, row by row (header cells of a row included). */
const rowsOf = (table: Locator) =>
  table
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) =>
        Array.from(
          (row as unknown as { cells: ArrayLike<{ textContent: string | null }> }).cells,
        ).map((cell) => (cell.textContent ?? '').trim()),
      ),
    )

/** Waits until the chart's canvas has a drawn (non-transparent) pixel. */
const drawn = (page: Page, id: string) =>
  page.waitForFunction(
    (chart) => {
      const c = (
        globalThis as unknown as { document: { querySelector(s: string): CanvasLike | null } }
      ).document.querySelector(`canvas[data-chart="${chart}"]`)
      const data = c?.getContext('2d')?.getImageData(0, 0, c.width, c.height).data
      if (!c || !data || c.width === 0) return false
      for (let i = 3; i < data.length; i += 4) if ((data[i] as number) > 0) return true
      return false
    },
    id,
    { timeout: 30_000 },
  )

const n = (value: number) => value.toLocaleString('en-US')

const DAY_MS = 86_400_000
/** The UTC date `days` from now (the browser's today is npm start's first day). */
const dateIn = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10)

const moveServerClock = async (advanceMs: number) => {
  const moved = await fetch(`${server.baseUrl}/_local/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advanceMs }),
  })
  expect(moved.status).toBe(200)
}

/** The three charts' tables hold what the API says of the same range. */
const expectTables = async (figures: Locator, daily: Daily) => {
  const outcomes = figures.getByRole('table', { name: /^Grants per day by outcome/ })
  await visible(outcomes.getByRole('rowheader', { name: daily.to, exact: true }))
  expect(await rowsOf(outcomes)).toEqual(
    daily.days.map((d) => [
      d.date,
      ...[
        d.made,
        d.accepted,
        d.declined,
        (d.ineligibleAge ?? 0) + (d.ineligibleCountry ?? 0),
        d.expired,
        d.canceled,
      ].map((v) => n(v as number)),
    ]),
  )
  const funnel = figures.getByRole('table', { name: /^Acceptance funnel/ })
  expect((await rowsOf(funnel)).map((r) => r.slice(0, 2))).toEqual(
    [
      ['Made', 'made'],
      ['Offered', 'offered'],
      ['Accepted', 'accepted'],
      ['Not accepted: Declined', 'declined'],
      ['Not accepted: Ineligible: age', 'ineligibleAge'],
      ['Not accepted: Ineligible: country', 'ineligibleCountry'],
      ['Not accepted: Expired', 'expired'],
      ['Not accepted: Canceled', 'canceled'],
    ].map(([label, key]) => [label, n(daily.totals[key as string] as number)]),
  )
  const pool = figures.getByRole('table', { name: /^Pool over time/ })
  expect(await rowsOf(pool)).toEqual(
    daily.days.map((d) => [
      d.date,
      n(d.sharesIssued as number),
      n(d.sharesReturned as number),
      d.remainingAtEnd === null ? 'No limit' : n(d.remainingAtEnd),
    ]),
  )
}

/** A screenshot of one section into docs/ (when missing, or VS_DOCS_IMAGES=1 asks for new ones). */
const sectionShot = async (page: Page, section: Locator, name: string) => {
  await section.scrollIntoViewIfNeeded()
  await section.screenshot({ path: join('test-output/console', name) })
  if (process.env.VS_DOCS_IMAGES === '1' || !existsSync(join(DOCS, name))) {
    await section.screenshot({ path: join(DOCS, name) })
  }
  return page
}

it('shows a program’s holders, pages and exports them, and charts its daily figures', async () => {
  const admin = await signedInMember(server, browser, 'admin', { who: 'figures-admin' })
  // A program of this test's own, with a small pool, so each holder's share of it shows.
  const program = await manage<{ id: string }>(admin.token, '/programs', {
    method: 'POST',
    body: JSON.stringify({ name: `Figures ${randomUUID().slice(0, 6)}`, mode: 'TEST', pool: 5000 }),
  })
  const who = (i: number) =>
    `holder-${String(i).padStart(2, '0')}-${randomUUID().slice(0, 4)}@example.com`

  // 27 recipients, every third left pending, the rest accepted (each a different amount); one
  // accepted recipient has a second, pending grant; then one grant each declined, ineligible by
  // age, ineligible by country, expired, canceled, and one offered: 28 holders, two pages of 25.
  const plan: { email: string; amount: number; to?: string; reason?: string }[] = []
  for (let i = 0; i < 27; i++) {
    plan.push({ email: who(i), amount: 10 + i, ...(i % 3 === 0 ? {} : { to: 'accepted' }) })
  }
  plan.push({ email: plan[1]?.email as string, amount: 5 })
  plan.push({ email: who(30), amount: 7, to: 'rejected', reason: 'declined' })
  plan.push({ email: who(31), amount: 8, to: 'rejected', reason: 'ineligible_age' })
  plan.push({ email: who(32), amount: 9, to: 'rejected', reason: 'ineligible_country' })
  plan.push({ email: who(33), amount: 3, to: 'expired' })
  plan.push({ email: who(34), amount: 4, to: 'canceled' })
  plan.push({ email: who(35), amount: 6, to: 'offered' })
  // Over three days of npm start's clock: each grant made and moved on day (its index mod 3).
  const dayOf = (i: number) => i % 3
  for (const day of [0, 1, 2]) {
    if (day > 0) await moveServerClock(DAY_MS)
    for (const [i, step] of plan.entries()) {
      if (dayOf(i) !== day) continue
      const id = await grant(program.id, step.email, step.amount)
      if (step.to) await move(program.id, id, step.to, step.reason)
    }
  }
  await drainNpmStart(server.baseUrl)

  // What each recipient holds, from the plan.
  const expected = new Map<string, { accepted: number; pending: number }>()
  for (const step of plan) {
    const held = expected.get(step.email) ?? { accepted: 0, pending: 0 }
    if (step.to === 'accepted') held.accepted += step.amount
    else if (step.to === undefined || step.to === 'offered') held.pending += step.amount
    expected.set(step.email, held)
  }
  const holding = [...expected].filter(([, h]) => h.accepted + h.pending > 0)

  // The API's holders, every page: the figures the stream reader kept match the plan.
  const viewer = await signedInMember(server, browser, 'viewer', { who: 'figures-viewer' })
  const listed: Holder[] = []
  let cursor: string | null = null
  do {
    const page: { data: Holder[]; nextCursor: string | null } = await manage(
      viewer.token,
      `/programs/${program.id}/holders?limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    )
    listed.push(...page.data)
    cursor = page.nextCursor
  } while (cursor)
  expect(
    Object.fromEntries(
      listed
        .filter((h) => h.accepted + h.pending > 0)
        .map((h) => [h.email, { accepted: h.accepted, pending: h.pending }]),
    ),
  ).toEqual(Object.fromEntries(holding))
  expect(listed.map((h) => h.accepted)).toEqual(
    [...listed.map((h) => h.accepted)].sort((a, b) => b - a),
  )
  expect(listed.length).toBeGreaterThan(25)

  const { page } = viewer
  const problems = watchConsole(page)
  // The chart library comes with the figures section only: the Programs page (the first page,
  // where the viewer landed) never asked for it.
  const scripts: string[] = []
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname)
  })
  await page.reload()
  await visible(page.getByRole('heading', { name: 'Programs' }))
  expect(scripts.length).toBeGreaterThan(0)
  expect(scripts.filter((s) => /program-charts/.test(s))).toEqual([])
  await page.goto(`/app/${server.seed.issuerId}/test/programs/${program.id}`)
  const holders = page.getByRole('table', { name: 'Holders, most accepted shares first' })
  await visible(holders.getByText(listed[0]?.email as string))
  const shown = (h: Holder) => [
    h.email,
    n(h.accepted),
    n(h.pending),
    h.shareOfPool === null ? '' : `${Number((Number(h.shareOfPool) * 100).toFixed(6))}%`,
    h.value ?? '',
  ]
  expect(await rowsOf(holders)).toEqual(listed.slice(0, 25).map(shown))
  // By keyboard: the focus reaches "More holders", Enter adds the next page.
  await tabTo(page, page.getByRole('button', { name: 'More holders' }))
  await page.keyboard.press('Enter')
  await visible(holders.getByText(listed[25]?.email as string))
  expect(await rowsOf(holders)).toEqual(listed.map(shown))
  expect(await page.getByRole('button', { name: 'More holders' }).count()).toBe(0)

  // The export: the whole list, read back with csv-parse.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export holders as CSV' }).click(),
  ])
  expect(download.suggestedFilename()).toBe(`holders-${program.id}.csv`)
  const records: string[][] = parse(await downloadedText(download))
  const header = records[0] as string[]
  const column = (name: RegExp) => header.findIndex((h) => name.test(h))
  const [email, accepted, pending] = [column(/mail/i), column(/^accepted/i), column(/^pending/i)]
  expect(records.slice(1).map((r) => [r[email], Number(r[accepted]), Number(r[pending])])).toEqual(
    listed.map((h) => [h.email, h.accepted, h.pending]),
  )
  await visible(page.getByRole('status').filter({ hasText: `Exported ${listed.length} holders` }))

  // The charts: the last 30 days at first (day 0 the last of them), each canvas drawn and named.
  const figures = page.getByRole('region', { name: 'Daily figures' })
  const dailyOf = (from: string, to: string): Promise<Daily> =>
    manage(viewer.token, `/programs/${program.id}/daily?from=${from}&to=${to}`)
  const first = await dailyOf(dateIn(-29), dateIn(0))
  const madeOn = (day: number) => plan.filter((_, i) => dayOf(i) === day).length
  expect(first.days).toHaveLength(30)
  expect(first.days.at(-1)?.made).toBe(madeOn(0))
  for (const id of ['chart-outcomes', 'chart-funnel', 'chart-pool']) await drawn(page, id)
  expect(
    await figures.locator('canvas[data-chart="chart-outcomes"]').getAttribute('aria-label'),
  ).toMatch(
    new RegExp(
      `^Grants per day by outcome, from ${dateIn(-29)} to ${dateIn(0)}: ${madeOn(0)} grants made;`,
    ),
  )
  expect(scripts.filter((s) => /program-charts-[\w-]+\.js$/.test(s))).toHaveLength(1)

  // A range of its own, over npm start's three days: the totals are the plan's.
  const [from, to] = [dateIn(-11), dateIn(2)]
  await figures.getByLabel('First day (UTC)').fill(from)
  await figures.getByLabel('Last day (UTC)').fill(to)
  await figures.getByRole('button', { name: 'Show figures' }).click()
  await visible(figures.locator(`canvas[aria-label*="from ${from} to ${to}"]`).first())
  for (const id of ['chart-outcomes', 'chart-funnel', 'chart-pool']) await drawn(page, id)
  const daily = await dailyOf(from, to)
  expect(daily.days.slice(-3).map((d) => d.made)).toEqual([madeOn(0), madeOn(1), madeOn(2)])
  expect(daily.totals).toMatchObject({
    made: plan.length,
    accepted: plan.filter((p) => p.to === 'accepted').length,
    declined: 1,
    ineligibleAge: 1,
    ineligibleCountry: 1,
    expired: 1,
    canceled: 1,
    sharesReturned: 7 + 8 + 9 + 3 + 4,
  })
  // The charts as drawn, their tables closed; then each table opened: the API's numbers.
  await sectionShot(page, figures, 'program-charts.png')
  await sectionShot(page, page.getByRole('region', { name: 'Holders' }), 'program-holders.png')
  for (const summary of [
    'Show grants per day by outcome as a table',
    'Show acceptance funnel as a table',
    'Show pool over time as a table',
  ]) {
    await figures.getByText(summary).click()
  }
  await expectTables(figures, daily)
  await checkPage(page, 'program-figures')

  // A range the API does not take is refused next to its field, and nothing is asked for.
  await figures.getByLabel('First day (UTC)').fill('2026-03-02')
  await figures.getByLabel('Last day (UTC)').fill('2026-03-01')
  await figures.getByRole('button', { name: 'Show figures' }).click()
  await visible(figures.getByText('The last day must be on or after the first day.'))
  expect(await figures.getByLabel('Last day (UTC)').getAttribute('aria-invalid')).toBe('true')
  await checkPage(page, 'program-figures-range-error')
  // The 90-day preset: 90 days in the tables, the API's numbers again.
  await figures.getByRole('button', { name: 'Last 90 days' }).click()
  await visible(
    figures.locator(`canvas[aria-label*="from ${dateIn(-89)} to ${dateIn(0)}"]`).first(),
  )
  await expectTables(figures, await dailyOf(dateIn(-89), dateIn(0)))
  expect(
    await figures.getByRole('button', { name: 'Last 90 days' }).getAttribute('aria-pressed'),
  ).toBe('true')
  expect(problems).toEqual([])
})
