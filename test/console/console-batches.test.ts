import { randomUUID } from 'node:crypto'
import { parse } from 'csv-parse/sync'
import type { Browser, Page } from 'playwright-core'
import { BATCH_RESULT_CSV_COLUMNS } from '../../functions/http/batch-view'
import {
  type ConsoleServer,
  checkPage,
  downloadedText,
  SET_UP_MS,
  signedInMember,
  startServerAndBrowser,
  visible,
  watchConsole,
} from './browser'

/**
 * A program's batches on its console page, in Chromium against a real `npm start` (its queue and
 * worker): every batch of the program from the management API (not only those this browser sent),
 * newest first, "show more"; while one runs, its rows per second and the time left, read again
 * every few seconds and no longer once none runs; an admin cancels a running one (confirmed; the
 * granted rows stay, the rest end canceled) and downloads its canceled rows as CSV; a viewer sees
 * the list without the button. Each page is checked by axe-core and photographed.
 */
let server: ConsoleServer
let browser: Browser

beforeAll(async () => {
  ;({ server, browser } = await startServerAndBrowser())
}, SET_UP_MS)

/** A person invited by the operator with `role`, signed in to the console; and their API token. */
const signedIn = (role: string) => signedInMember(server, browser, role)

const batchesPath = () =>
  `/manage/issuers/${server.seed.issuerId}/programs/${server.seed.programs.TEST}/grant-batches`

/** A batch committed through the management API (as another browser, or a script, would). */
const commit = async (token: string, rows: number, prefix: string) => {
  const csv = `email,amount\n${Array.from({ length: rows }, (_, i) => `${prefix}${i}@x.io,1`).join('\n')}\n`
  const response = await fetch(`${server.baseUrl}${batchesPath()}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': `console-batches-${randomUUID()}`,
    },
    body: JSON.stringify({ csv, reason: 'Console batches test', dryRun: false }),
  })
  const body = (await response.json()) as { id: string; status: string }
  if (response.status !== 202) throw new Error(`commit: ${response.status} ${JSON.stringify(body)}`)
  return body.id
}

const readBatch = async (token: string, batchId: string) => {
  const response = await fetch(`${server.baseUrl}${batchesPath()}/${batchId}?limit=1`, {
    headers: { authorization: `Bearer ${token}` },
  })
  return (await response.json()) as {
    status: string
    counts: { total: number; granted: number; failed: number; canceled: number; pending: number }
  }
}

const finished = async (token: string, batchId: string) => {
  const deadline = Date.now() + 120_000
  for (;;) {
    const batch = await readBatch(token, batchId)
    if (batch.status === 'done' || batch.status === 'canceled') return batch
    if (Date.now() > deadline) throw new Error(`batch ${batchId}: ${JSON.stringify(batch)}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

const programPage = (page: Page) =>
  page.goto(`/app/${server.seed.issuerId}/test/programs/${server.seed.programs.TEST}`)

const rowOf = (page: Page, batchId: string) =>
  page
    .getByRole('table', { name: 'Batches of this program, newest first' })
    .getByRole('row', { name: new RegExp(`Batch ${batchId}`) })

it("lists the program's batches with their pace while one runs, and cancels it; a viewer only sees them", async () => {
  const { page, token } = await signedIn('admin')
  const problems = watchConsole(page)

  // 22 small batches, sent by "another browser" (the API): the page shows them all the same.
  const small: string[] = []
  for (let i = 0; i < 22; i++) small.push(await commit(token, 2, `small${i}-`))
  for (const id of small) await finished(token, id)

  await programPage(page)
  await visible(rowOf(page, small[21] as string))
  const table = page.getByRole('table', { name: 'Batches of this program, newest first' })
  // Newest first, 20 a page; "show more" brings the rest.
  expect(await table.getByRole('row').count()).toBe(21)
  expect(await table.getByRole('row').nth(1).innerText()).toContain(small[21])
  expect(await rowOf(page, small[0] as string).count()).toBe(0)
  await page.getByRole('button', { name: 'Show more batches' }).click()
  await visible(rowOf(page, small[0] as string))
  expect(await page.getByRole('button', { name: 'Show more batches' }).count()).toBe(0)
  expect(await rowOf(page, small[0] as string).innerText()).toMatch(
    /done[\s\S]*2 of 2 rows done: 2 granted, 0 failed\./,
  )
  // Nothing runs: the list is not read again.
  const reads: string[] = []
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === batchesPath()) reads.push(request.url())
  })
  await page.waitForTimeout(7_000)
  expect(reads).toEqual([])

  // A batch large enough to watch: its pace shows while it runs, read every few seconds.
  const big = await commit(token, 40_000, 'big')
  await programPage(page)
  const row = rowOf(page, big)
  await visible(row)
  await visible(row.getByText(/[\d,.]+ rows\/s, about [\d hmins]+ left/), 60_000)
  const running = await row.innerText()
  expect(running).toMatch(/running/)
  expect(running).toMatch(/of 40,000 rows done: [\d,]+ granted, 0 failed, [\d,]+ pending\./)
  await checkPage(page, 'program-batches-running')

  // Cancel: confirmed first, then the batch says it is stopping, then what it came to.
  await row.getByRole('button', { name: `Cancel batch ${big}` }).click()
  const dialog = page.getByRole('dialog', { name: `Cancel batch ${big}?` })
  await visible(dialog)
  expect(await dialog.innerText()).toMatch(/Rows not yet sent will not be sent/)
  await checkPage(page, 'program-batches-cancel-dialog')
  await dialog.getByRole('button', { name: 'Cancel the batch' }).click()
  await visible(
    page.getByRole('status').filter({ hasText: `Batch ${big} is canceling: rows not yet sent` }),
  )
  const after = await finished(token, big)
  expect(after.status).toBe('canceled')
  expect(after.counts.canceled).toBeGreaterThan(0)
  expect(after.counts.granted).toBeGreaterThan(0)
  expect(after.counts.granted + after.counts.canceled).toBe(40_000)
  // The list read again shows it final, with no button, and stops reading.
  await visible(row.getByText('canceled', { exact: true }), 20_000)
  const n = (value: number) => value.toLocaleString('en-US')
  expect(await row.innerText()).toContain(
    `${n(after.counts.granted)} of 40,000 rows done: ${n(after.counts.granted)} granted, 0 failed, ${n(after.counts.canceled)} canceled.`,
  )
  expect(await row.getByRole('button').count()).toBe(0)
  await page.waitForTimeout(4_000)
  reads.splice(0)
  await page.waitForTimeout(7_000)
  expect(reads).toEqual([])
  await checkPage(page, 'program-batches-canceled')

  // The batch's link opens its page, which says what it came to; its rows filter by canceled.
  await row.getByRole('link', { name: `Batch ${big}` }).click()
  await visible(page.getByRole('heading', { name: `Batch ${big}` }))
  await visible(
    page.getByText(
      `Canceled: ${n(after.counts.granted)} of 40,000 rows done, ${n(after.counts.granted)} granted, 0 failed, ${n(after.counts.canceled)} canceled, 0 pending.`,
    ),
  )
  await page.getByLabel('Show rows').selectOption('canceled')
  const rows = page.getByRole('table', { name: 'Rows of the batch, in CSV order' })
  await visible(rows.getByText('canceled', { exact: true }))
  expect(await rows.getByText('granted', { exact: true }).count()).toBe(0)
  // The canceled rows as one CSV file (pages of 500 appended), read by csv-parse: ready to send
  // again as a new batch, since a batch ignores the result_ columns.
  const [download] = await Promise.all([
    // About 75 pages of 500 rows are read before the file is saved: more than Playwright's 30 s
    // default on a loaded machine.
    page.waitForEvent('download', { timeout: 120_000 }),
    page.getByRole('button', { name: 'Download canceled rows (CSV)' }).click(),
  ])
  expect(download.suggestedFilename()).toBe(`batch-${big}-canceled.csv`)
  const records: string[][] = parse(await downloadedText(download))
  expect(records[0]).toEqual(BATCH_RESULT_CSV_COLUMNS)
  expect(records.length - 1).toBe(after.counts.canceled)
  expect(new Set(records.slice(1).map((r) => r[5]))).toEqual(new Set(['canceled']))
  await visible(
    page.getByRole('status').filter({
      hasText: `Downloaded ${n(after.counts.canceled)} rows as CSV.`,
    }),
  )
  await checkPage(page, 'batch-canceled')

  // A viewer sees the same list, without the cancel button.
  const viewer = await signedIn('viewer')
  await programPage(viewer.page)
  await visible(rowOf(viewer.page, big))
  expect(
    await viewer.page
      .getByRole('table', { name: 'Batches of this program, newest first' })
      .getByRole('button')
      .count(),
  ).toBe(0)
  await checkPage(viewer.page, 'program-batches-viewer')

  expect(problems).toEqual([])
})

it('cancels a running batch from its own page, which shows its pace until then', async () => {
  const { page, token } = await signedIn('admin')
  const problems = watchConsole(page)
  const big = await commit(token, 40_000, 'own')
  await page.goto(
    `/app/${server.seed.issuerId}/test/programs/${server.seed.programs.TEST}/batches/${big}`,
  )
  await visible(page.getByRole('heading', { name: `Batch ${big}` }))
  await visible(page.getByText(/^[\d,.]+ rows\/s, about [\d hmins]+ left$/), 60_000)
  await page.getByRole('button', { name: `Cancel batch ${big}` }).click()
  const dialog = page.getByRole('dialog', { name: `Cancel batch ${big}?` })
  await dialog.getByRole('button', { name: 'Cancel the batch' }).click()
  await visible(page.getByRole('status').filter({ hasText: `Batch ${big} is canceling` }))
  // The page keeps reading it while it is canceling, until it is final.
  await visible(page.getByText(/^Canceled: [\d,]+ of 40,000 rows done, /), 60_000)
  const after = await finished(token, big)
  expect(after.status).toBe('canceled')
  expect(after.counts.canceled).toBeGreaterThan(0)
  expect(await page.getByRole('button', { name: `Cancel batch ${big}` }).count()).toBe(0)
  expect(problems).toEqual([])
})
