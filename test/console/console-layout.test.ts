import { randomUUID } from 'node:crypto'
import type { Browser, Locator, Page } from 'playwright-core'
import { postGrant } from '../support/api'
import {
  adminCli,
  type ConsoleServer,
  checkPage,
  mailTo,
  newContext,
  SET_UP_MS,
  startServerAndBrowser,
  temporaryPasswordIn,
  visible,
  watchConsole,
} from './browser'

// What page.evaluate callbacks read in the browser: the root tsconfig has Node's types, not the DOM's.
declare class CSSStyleSheet {
  replaceSync(text: string): void
}
declare const document: {
  scrollingElement: { scrollWidth: number }
  adoptedStyleSheets: (CSSStyleSheet & { override?: boolean })[]
}
declare const innerWidth: number
declare const scrollX: number
declare const scrollY: number

/**
 * Long values within the limits, in a real browser at 1280 px against a real `npm start`: a
 * 100-character issuer and program name without spaces, a 200-character recipient name without
 * spaces, a 500-character reason without spaces, and a name that is nothing but letters under
 * stacks of combining marks. The page never scrolls sideways, table rows never overlap, and the
 * combining marks paint nothing outside their own cell. Each check is run once more with the
 * console's rules switched off, to show it sees what it is looking for.
 */
let server: ConsoleServer
let browser: Browser

beforeAll(async () => {
  ;({ server, browser } = await startServerAndBrowser())
}, SET_UP_MS)

const PASSWORD = 'a long passphrase for the console'
const unbroken = (prefix: string, length: number) =>
  `${prefix}${'abcdefghij'.repeat(length)}`.slice(0, length)
// Two letters, each under 49 marks above (U+0300 to U+030F) and 49 below (U+0316 to U+0319,
// U+031C to U+0320): 198 characters, a stack taller than the row's other lines.
const ABOVE = Array.from({ length: 49 }, (_, i) => String.fromCodePoint(0x300 + (i % 16))).join('')
const BELOW_MARKS = [0x316, 0x317, 0x318, 0x319, 0x31c, 0x31d, 0x31e, 0x31f, 0x320]
const BELOW = Array.from({ length: 49 }, (_, i) =>
  String.fromCodePoint(BELOW_MARKS[i % BELOW_MARKS.length] ?? 0x316),
).join('')
const ZALGO = [...'Zo'].map((letter) => letter + ABOVE + BELOW).join('')

/** The page's own width against the window's: what scrolls sideways. */
const widths = (page: Page) =>
  page.evaluate(() => ({ page: document.scrollingElement.scrollWidth, window: innerWidth }))

/**
 * A style sheet added to the page (or, with `undefined`, taken away), for the control runs: a
 * constructed one, as the console's Content-Security-Policy refuses a <style> element.
 */
const override = (page: Page, css: string | undefined) =>
  page.evaluate((text) => {
    const sheets = document.adoptedStyleSheets.filter((s) => !s.override)
    if (text !== undefined) {
      const sheet = new CSSStyleSheet() as CSSStyleSheet & { override?: boolean }
      sheet.replaceSync(text)
      sheet.override = true
      sheets.push(sheet)
    }
    document.adoptedStyleSheets = sheets
  }, css)

/** What the rows above and below `row` look like, pixel for pixel (in page coordinates). */
const neighbours = async (page: Page, above: Locator, below: Locator) => {
  const shots: Buffer[] = []
  for (const row of [above, below]) {
    const box = await row.boundingBox()
    if (!box) throw new Error('a row has no box')
    const scroll = await page.evaluate(() => ({ x: scrollX, y: scrollY }))
    shots.push(
      await page.screenshot({
        fullPage: true,
        clip: { ...box, x: box.x + scroll.x, y: box.y + scroll.y },
      }),
    )
  }
  return shots
}

it('keeps long names, long reasons and combining marks inside their tables at 1280 px', async () => {
  const issuerName = unbroken('Issuer', 100)
  const programName = unbroken('Program', 100)
  const issuer = await adminCli(server, ['issuer', 'create', '--name', issuerName])
  const program = await adminCli(server, [
    'program',
    'create',
    '--issuer',
    issuer.issuerId,
    '--mode',
    'TEST',
    '--name',
    programName,
  ])
  const { secret } = await adminCli(server, [
    'key',
    'create',
    '--issuer',
    issuer.issuerId,
    '--mode',
    'TEST',
  ])
  // Oldest first: the table shows them newest first, the combining marks between two plain rows.
  const grants = [
    { name: unbroken('Name', 200), reason: unbroken('Reason', 500) },
    { name: 'Ann Plain', reason: 'Below the marks' },
    { name: ZALGO, reason: 'Combining marks' },
    { name: 'Bob Plain', reason: 'Above the marks' },
  ]
  expect(grants[0]?.name).toHaveLength(200)
  expect(grants[0]?.reason).toHaveLength(500)
  expect(ZALGO).toHaveLength(198)
  for (const [i, { name, reason }] of grants.entries()) {
    const call = await postGrant(server.baseUrl, program.programId, secret, {
      recipient: { email: `r${i}@x.io`, name },
      reason,
      amount: 1,
    })
    expect(call.status).toBe(201)
  }

  const email = `layout-${randomUUID().slice(0, 8)}@example.com`
  await adminCli(server, [
    'member',
    'invite',
    '--issuer',
    issuer.issuerId,
    '--email',
    email,
    '--role',
    'admin',
  ])
  const temporary = temporaryPasswordIn(await mailTo(server, email))
  const context = await newContext(browser, server.baseUrl)
  const page = await context.newPage()
  expect(page.viewportSize()?.width).toBe(1280)
  const problems = watchConsole(page)
  await page.goto('/app/accept')
  await visible(page.getByRole('heading', { name: 'Accept your invitation' }))
  await page.getByLabel('E-mail address').fill(email)
  await page.getByLabel('Temporary password').fill(temporary)
  await page.getByLabel('New password', { exact: true }).fill(PASSWORD)
  await page.getByLabel('Repeat the new password').fill(PASSWORD)
  await page.getByLabel('Repeat the new password').press('Enter')
  await visible(page.getByRole('heading', { name: 'Programs' }))

  // The programs list, with the long program name.
  await visible(page.getByRole('link', { name: programName }))
  const programsPage = await widths(page)
  expect(programsPage.page).toBeLessThanOrEqual(programsPage.window)
  await checkPage(page, 'layout-programs')

  // Bidirectional controls are refused next to the field: by the API for a program's name...
  await page.getByLabel('Name', { exact: true }).fill('Spring \u202Eexe.')
  await page.getByRole('button', { name: 'Create program' }).click()
  await visible(
    page.getByText('name must not contain bidirectional control characters (U+202A to U+202E'),
  )
  expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true')
  await page.getByLabel('Name', { exact: true }).fill('')

  // The program page: four rows, newest first.
  await page.getByRole('link', { name: programName }).click()
  await visible(page.getByRole('heading', { name: programName }))
  const rows = page.locator('table:has(caption:text("Recent grants")) tbody tr')
  await visible(rows.filter({ hasText: 'r0@x.io' }))
  expect(await rows.count()).toBe(4)
  const zalgoRow = rows.nth(1)
  expect(await zalgoRow.innerText()).toContain('Combining marks')

  // ...and by the send-one form itself, before anything is sent.
  await page.getByLabel('Recipient e-mail', { exact: true }).fill('bidi@x.io')
  await page.getByLabel('Recipient name', { exact: true }).fill('\u202Egnp.exe')
  await page.getByLabel('Reason', { exact: true }).fill('Bonus \u2066x')
  await page.getByLabel('Amount', { exact: true }).fill('1')
  await page.getByRole('button', { name: 'Preview grant' }).click()
  expect(
    await page.getByText('No bidirectional control characters (U+202A to U+202E').count(),
  ).toBe(2)
  expect(await page.getByLabel('Reason', { exact: true }).getAttribute('aria-invalid')).toBe('true')
  expect(await rows.count()).toBe(4)

  const programPage = await widths(page)
  expect(programPage.page).toBeLessThanOrEqual(programPage.window)
  // The table wraps rather than scrolls: its box is no wider than the page's column.
  const box = page.locator('.table-box').first()
  const tableFits = await box.evaluate((el) => el.scrollWidth <= el.clientWidth)
  expect(tableFits).toBe(true)

  // No row's box overlaps the next one's.
  const boxes = await Promise.all([0, 1, 2, 3].map((i) => rows.nth(i).boundingBox()))
  for (let i = 1; i < boxes.length; i++) {
    const [upper, lower] = [boxes[i - 1], boxes[i]]
    if (!upper || !lower) throw new Error('a row has no box')
    expect(upper.y + upper.height).toBeLessThanOrEqual(lower.y + 0.5)
  }
  // The long cells wrapped onto many lines rather than widening the table.
  expect(boxes[3]?.height ?? 0).toBeGreaterThan(100)

  // The combining marks paint nothing in the rows above and below: those rows look the same
  // with the marks' text hidden.
  const zalgoName = zalgoRow.locator('.hint')
  const withMarks = await neighbours(page, rows.nth(0), rows.nth(2))
  await zalgoName.evaluate((el) => {
    ;(el as unknown as { style: { visibility: string } }).style.visibility = 'hidden'
  })
  const withoutMarks = await neighbours(page, rows.nth(0), rows.nth(2))
  await zalgoName.evaluate((el) => {
    ;(el as unknown as { style: { visibility: string } }).style.visibility = ''
  })
  expect(withMarks[0]?.equals(withoutMarks[0] as Buffer)).toBe(true)
  expect(withMarks[1]?.equals(withoutMarks[1] as Buffer)).toBe(true)
  await checkPage(page, 'layout-program-long-values')

  // Control runs: with the cells' rules switched off, the same checks see the marks in the next
  // rows and the page scroll sideways, so the checks above can fail.
  await override(page, 'th, td { overflow: visible !important; }')
  const unclipped = await neighbours(page, rows.nth(0), rows.nth(2))
  await zalgoName.evaluate((el) => {
    ;(el as unknown as { style: { visibility: string } }).style.visibility = 'hidden'
  })
  const unclippedWithout = await neighbours(page, rows.nth(0), rows.nth(2))
  await zalgoName.evaluate((el) => {
    ;(el as unknown as { style: { visibility: string } }).style.visibility = ''
  })
  expect(
    (unclipped[0]?.equals(unclippedWithout[0] as Buffer) ?? true) &&
      (unclipped[1]?.equals(unclippedWithout[1] as Buffer) ?? true),
  ).toBe(false)
  await override(
    page,
    '* { overflow-wrap: normal !important; } .table-box { overflow: visible !important; }',
  )
  const unwrapped = await widths(page)
  expect(unwrapped.page).toBeGreaterThan(unwrapped.window)
  await override(page, undefined)
  expect((await widths(page)).page).toBeLessThanOrEqual(1280)

  // The audit log shows the program's creation with its name; the keys and team pages list too.
  for (const [link, name] of [
    ['Audit log', 'layout-audit'],
    ['API keys', 'layout-keys'],
    ['Team', 'layout-team'],
  ] as const) {
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: link })
      .click()
    await visible(page.locator('table').first())
    const shown = await widths(page)
    expect({ page: link, fits: shown.page <= shown.window }).toEqual({ page: link, fits: true })
    await checkPage(page, name)
  }
  // The one 400 is the program name refused above; nothing else went wrong in the page.
  expect(problems).toEqual([
    'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
  ])
  await context.close()
}, 300_000)
