import * as ui from './browser'

/**
 * The value of a share on the program page (issue 32), in Chromium against `npm start`: an admin
 * sets it through the form (a wrong amount and a future date answered next to their fields), the
 * page shows the current value and the history, a backdated entry leaves the current value as it
 * is, and a viewer reads it all without the form. Checked by axe-core and photographed.
 */

/** The run's shared server (an issuer of this file's own) and Chromium. */
const run = {} as Awaited<ReturnType<typeof ui.startServerAndBrowser>>
beforeAll(async () => Object.assign(run, await ui.startServerAndBrowser()), ui.SET_UP_MS)
const { visible, errorNextTo } = ui

const programPath = () =>
  `/app/${run.server.seed.issuerId}/live/programs/${run.server.seed.programs.LIVE}`

it('lets an admin set the value, with errors by field, and shows it and its history to a viewer', async () => {
  const { page } = await ui.signedInMember(run.server, run.browser, 'admin')
  const problems = ui.watchConsole(page)
  await page.goto(programPath())
  const panel = page.getByRole('region', { name: 'Value of a share' })
  await visible(panel.getByText('No value set yet'))

  // The page's own check first: nothing is sent.
  await page.getByLabel('Value of one share', { exact: true }).fill('12,50')
  await page.getByLabel('Currency', { exact: true }).fill('eur')
  await page.getByRole('button', { name: 'Save the value' }).click()
  expect(await errorNextTo(page, 'Value of one share')).toMatch(/such as 12\.50/)

  // The service's rule: a date in the future, answered next to its field.
  await page.getByLabel('Value of one share', { exact: true }).fill('12.50')
  await page.getByLabel('As of', { exact: true }).fill('2999-01-01')
  await page.getByRole('button', { name: 'Save the value' }).click()
  expect(await errorNextTo(page, 'As of')).toMatch(/must not be in the future/)

  await page.getByLabel('As of', { exact: true }).fill('2026-11-01')
  await page.getByLabel('Method', { exact: true }).fill('Last financing round')
  await page.getByRole('button', { name: 'Save the value' }).click()
  await visible(
    page
      .getByRole('status')
      .filter({ hasText: 'The value of a share is now 12.50 EUR as of 2026-11-01' }),
  )
  await visible(panel.getByText('12.50 EUR as of 2026-11-01'))
  await visible(panel.getByText('Last financing round').first())

  // A backdated value joins the history; the current one stays.
  await page.getByLabel('Value of one share', { exact: true }).fill('9')
  await page.getByLabel('As of', { exact: true }).fill('2026-01-01')
  await page.getByRole('button', { name: 'Save the value' }).click()
  await visible(page.getByRole('status').filter({ hasText: 'a later value stays current' }))
  const table = panel.getByRole('table', { name: 'Value history, latest date first' })
  await visible(table.getByRole('cell', { name: '9 EUR' }))
  const rows = await table.locator('tbody tr').allInnerTexts()
  expect(rows.map((r) => r.split('\t')[0]?.trim())).toEqual(['2026-11-01 current', '2026-01-01'])
  await visible(panel.getByText('12.50 EUR as of 2026-11-01'))
  await ui.checkPage(page, 'console-program-value')
  // The refused save's 400 is the only failed load.
  expect(problems.filter((p) => !p.includes('status of 400'))).toEqual([])

  // A viewer reads the value and the history; no form.
  const viewer = await ui.signedInMember(run.server, run.browser, 'viewer')
  await viewer.page.goto(programPath())
  const seen = viewer.page.getByRole('region', { name: 'Value of a share' })
  await visible(seen.getByText('12.50 EUR as of 2026-11-01'))
  await visible(seen.getByRole('cell', { name: '9 EUR' }))
  expect(await viewer.page.getByRole('heading', { name: 'Set the value of a share' }).count()).toBe(
    0,
  )
})
