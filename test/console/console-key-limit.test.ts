import * as ui from './browser'

/**
 * A key's rate limit on the API keys page (issue 33), in Chromium against `npm start`: an admin
 * sees the TEST default, lowers it in the dialog (a typo answered by the page, more than the
 * default by the service, each next to the field), sees the new limit in the table, and sets it
 * back to the default; a viewer reads the limit without the action. Checked by axe-core and
 * photographed.
 */

/** The run's shared server (an issuer of this file's own) and Chromium. */
const run = {} as Awaited<ReturnType<typeof ui.startServerAndBrowser>>
beforeAll(async () => Object.assign(run, await ui.startServerAndBrowser()), ui.SET_UP_MS)
const { visible, errorNextTo } = ui

const keysPath = () => `/app/${run.server.seed.issuerId}/test/keys`
const masked = () =>
  `${run.server.seed.keys.TEST.slice(0, 8)}…${run.server.seed.keys.TEST.slice(-4)}`

it('lets an admin lower a key rate limit, with errors next to the field, and shows it to a viewer', async () => {
  const { page } = await ui.signedInMember(run.server, run.browser, 'admin')
  const problems = ui.watchConsole(page)
  await page.goto(keysPath())
  const row = page.getByRole('row').filter({ hasText: masked() })
  await visible(row.getByRole('cell', { name: '25/s default' }))

  await page.getByRole('button', { name: `Change limit key ${masked()}` }).click()
  const dialog = page.getByRole('dialog', { name: `Rate limit of key ${masked()}` })
  await visible(dialog.getByText('Now 25 requests a second, the TEST default'))
  const field = 'Requests a second'

  // The page's own check first: nothing is sent.
  await dialog.getByLabel(field, { exact: true }).fill('fast')
  await dialog.getByRole('button', { name: 'Save the limit' }).click()
  expect(await errorNextTo(page, field)).toMatch(/Enter a whole number of requests a second/)

  // The service's rule: a person only lowers a key's limit.
  await dialog.getByLabel(field, { exact: true }).fill('30')
  await dialog.getByRole('button', { name: 'Save the limit' }).click()
  expect(await errorNextTo(page, field)).toMatch(
    /rateLimit must be a whole number from 1 to 25, got 30; only the operator raises/,
  )
  await ui.checkPage(page, 'console-key-limit')

  await dialog.getByLabel(field, { exact: true }).fill('10')
  await dialog.getByRole('button', { name: 'Save the limit' }).click()
  await visible(
    page.getByRole('status').filter({ hasText: `Key ${masked()} now allows 10 requests a second` }),
  )
  await visible(row.getByRole('cell', { name: '10/s own limit' }))
  // The refused save's 400 is the only failed load.
  expect(problems.filter((p) => !p.includes('status of 400'))).toEqual([])

  // A viewer reads the limit; no action.
  const viewer = await ui.signedInMember(run.server, run.browser, 'viewer')
  await viewer.page.goto(keysPath())
  const seen = viewer.page.getByRole('row').filter({ hasText: masked() })
  await visible(seen.getByRole('cell', { name: '10/s own limit' }))
  expect(await viewer.page.getByRole('button', { name: /^Change limit/ }).count()).toBe(0)

  // Back to the default: the field left empty.
  await page.getByRole('button', { name: `Change limit key ${masked()}` }).click()
  await dialog.getByLabel(field, { exact: true }).fill('')
  await dialog.getByRole('button', { name: 'Save the limit' }).click()
  await visible(
    page.getByRole('status').filter({ hasText: 'now allows 25 requests a second (the default)' }),
  )
  await visible(row.getByRole('cell', { name: '25/s default' }))
})
