import { randomUUID } from 'node:crypto'
import { parse } from 'csv-parse/sync'
import type { Browser, Page } from 'playwright-core'
import { BATCH_RESULT_CSV_COLUMNS, RATE_MIN_MS } from '../../functions/http/batch-view'
import { drainNpmStart } from '../support/pipeline'
import {
  type ConsoleServer,
  checkPage,
  downloadedText,
  readsWhileClockRuns,
  SET_UP_MS,
  signedInMember,
  startOwnServerAndBrowser,
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
 *
 * "Running" is made exact, not raced: the server's batch queue is held (POST /_local/pipeline/hold)
 * and lets one chunk through, so a batch is mid-way for as long as the test needs, and what it
 * came to is known to the row. The hold is the whole queue's, so the file has a server of its own.
 * The page's clock (Playwright's) fires its timers to show it reads the list again, or does not.
 */
let server: ConsoleServer
let browser: Browser

beforeAll(async () => {
  ;({ server, browser } = await startOwnServerAndBrowser())
  // Nobody reads the grants' offer mail here: held, it does not hold up a drain.
  await local('/_local/pipeline/hold', { queue: 'OfferMail', hold: true })
}, SET_UP_MS)

/** How often the page reads the list while a batch moves (console/src/pages/program-batches.tsx). */
const BATCHES_POLL_MS = 3_000
/** Rows of a chunk, one GrantBatchRows message (functions/domain/batch.ts BATCH_LIMITS.chunkRows). */
const CHUNK_ROWS = 100

/** A person invited by the operator with `role`, signed in to the console; and their API token. */
const signedIn = (role: string) => signedInMember(server, browser, role)

const batchesPath = () =>
  `/manage/issuers/${server.seed.issuerId}/programs/${server.seed.programs.TEST}/grant-batches`

/** A POST of JSON to one of npm start's local tools; its answer. */
const local = async (path: string, body: unknown) => {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (response.status !== 200)
    throw new Error(`${path}: ${response.status} ${await response.text()}`)
  return response.json()
}
/** The batch worker takes no chunk but the next `let` ones, until released. */
const holdBatches = (letThrough = 0) =>
  local('/_local/pipeline/hold', { queue: 'GrantBatchRows', hold: true, let: letThrough })
const releaseBatches = () =>
  local('/_local/pipeline/hold', { queue: 'GrantBatchRows', hold: false })
/** npm start's clock moved on (the pace shows once a batch has run RATE_MIN_MS). */
const moveServerClock = (advanceMs: number) => local('/_local/clock', { advanceMs })

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

/** The batch once the server's pipeline has taken everything it can (a held queue's rest waits). */
const settled = async (token: string, batchId: string) => {
  await drainNpmStart(server.baseUrl)
  return readBatch(token, batchId)
}

/**
 * A batch of `rows` held with its first chunk granted and the rest pending, past RATE_MIN_MS on
 * the server's clock so that its pace shows: running, exactly.
 */
const runningBatch = async (token: string, rows: number, prefix: string) => {
  await holdBatches()
  const id = await commit(token, rows, prefix)
  await holdBatches(1)
  expect((await settled(token, id)).counts).toEqual({
    total: rows,
    granted: CHUNK_ROWS,
    failed: 0,
    canceled: 0,
    pending: rows - CHUNK_ROWS,
  })
  await moveServerClock(RATE_MIN_MS)
  return id
}

/** Released after a cancel: the held chunks end canceled; what the batch came to. */
const releasedAfterCancel = async (token: string, batchId: string, rows: number) => {
  await releaseBatches()
  const after = await settled(token, batchId)
  expect(after).toMatchObject({
    status: 'canceled',
    counts: {
      total: rows,
      granted: CHUNK_ROWS,
      failed: 0,
      canceled: rows - CHUNK_ROWS,
      pending: 0,
    },
  })
  return after
}

const programPage = (page: Page) =>
  page.goto(`/app/${server.seed.issuerId}/test/programs/${server.seed.programs.TEST}`)

const rowOf = (page: Page, batchId: string) =>
  page
    .getByRole('table', { name: 'Batches of this program, newest first' })
    .getByRole('row', { name: new RegExp(`Batch ${batchId}`) })

/** The list's reads while the page's clock runs `ms` on (its timers fire at once). */
const listReads = (page: Page, ms: number) =>
  readsWhileClockRuns(page, (path) => path === batchesPath(), ms)
/** 12 chunks: 100 rows granted, 1,100 canceled (the canceled rows' CSV is 3 pages of 500). */
const BIG = 1_200

it("lists the program's batches with their pace while one runs, and cancels it; a viewer only sees them", async () => {
  const { page, token } = await signedIn('admin')
  const problems = watchConsole(page)
  // The page's timers on Playwright's clock (flowing as real time until runFor moves it on).
  await page.clock.install()

  // 22 small batches, sent by "another browser" (the API): the page shows them all the same.
  const small: string[] = []
  for (let i = 0; i < 22; i++) small.push(await commit(token, 2, `small${i}-`))
  await drainNpmStart(server.baseUrl)
  for (const id of small) expect([id, (await readBatch(token, id)).status]).toEqual([id, 'done'])

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
  // Nothing runs: the list is not read again, however long the page waits.
  expect(await listReads(page, 3 * BATCHES_POLL_MS)).toEqual([])

  // A batch held mid-way: its pace shows while it runs, and the list is read every few seconds.
  const big = await runningBatch(token, BIG, 'big')
  await programPage(page)
  const row = rowOf(page, big)
  await visible(row)
  await visible(row.getByText(/[\d,.]+ rows\/s, about [\d hmins]+ left/))
  const running = await row.innerText()
  expect(running).toMatch(/running/)
  expect(running).toContain('100 of 1,200 rows done: 100 granted, 0 failed, 1,100 pending.')
  const readAgain = page.waitForRequest((r) => new URL(r.url()).pathname === batchesPath())
  await page.clock.runFor(BATCHES_POLL_MS)
  await readAgain
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
  // The held chunks go now, and end canceled: the first chunk's rows stay granted.
  const after = await releasedAfterCancel(token, big, BIG)
  // The list read again shows it final, with no button, and stops reading.
  await visible(row.getByText('canceled', { exact: true }), 20_000)
  const n = (value: number) => value.toLocaleString('en-US')
  expect(await row.innerText()).toContain(
    `${n(after.counts.granted)} of 1,200 rows done: ${n(after.counts.granted)} granted, 0 failed, ${n(after.counts.canceled)} canceled.`,
  )
  expect(await row.getByRole('button').count()).toBe(0)
  // A read already on its way is let in first; after it, none.
  await listReads(page, BATCHES_POLL_MS)
  expect(await listReads(page, 3 * BATCHES_POLL_MS)).toEqual([])
  await checkPage(page, 'program-batches-canceled')

  // The batch's link opens its page, which says what it came to; its rows filter by canceled.
  await row.getByRole('link', { name: `Batch ${big}` }).click()
  await visible(page.getByRole('heading', { name: `Batch ${big}` }))
  await visible(
    page.getByText(
      `Canceled: ${n(after.counts.granted)} of 1,200 rows done, ${n(after.counts.granted)} granted, 0 failed, ${n(after.counts.canceled)} canceled, 0 pending.`,
    ),
  )
  await page.getByLabel('Show rows').selectOption('canceled')
  const rows = page.getByRole('table', { name: 'Rows of the batch, in CSV order' })
  await visible(rows.getByText('canceled', { exact: true }))
  expect(await rows.getByText('granted', { exact: true }).count()).toBe(0)
  // The canceled rows as one CSV file (pages of 500 appended: 3 here), read by csv-parse: ready
  // to send again as a new batch, since a batch ignores the result_ columns.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download canceled rows (CSV)' }).click(),
  ])
  expect(download.suggestedFilename()).toBe(`batch-${big}-canceled.csv`)
  const records: string[][] = parse(await downloadedText(download))
  expect(records[0]).toEqual(BATCH_RESULT_CSV_COLUMNS)
  expect(records.length - 1).toBe(after.counts.canceled)
  expect(new Set(records.slice(1).map((r) => r[0])).size).toBe(BIG - CHUNK_ROWS)
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
  const rows = 300
  const big = await runningBatch(token, rows, 'own')
  await page.goto(
    `/app/${server.seed.issuerId}/test/programs/${server.seed.programs.TEST}/batches/${big}`,
  )
  await visible(page.getByRole('heading', { name: `Batch ${big}` }))
  await visible(page.getByText(/^[\d,.]+ rows\/s, about [\d hmins]+ left$/))
  await page.getByRole('button', { name: `Cancel batch ${big}` }).click()
  const dialog = page.getByRole('dialog', { name: `Cancel batch ${big}?` })
  await dialog.getByRole('button', { name: 'Cancel the batch' }).click()
  await visible(page.getByRole('status').filter({ hasText: `Batch ${big} is canceling` }))
  // The page keeps reading it while it is canceling, until it is final.
  const after = await releasedAfterCancel(token, big, rows)
  await visible(
    page.getByText(/^Canceled: 100 of 300 rows done, 100 granted, 0 failed, 200 canceled/),
  )
  expect(after.status).toBe('canceled')
  expect(after.counts.canceled).toBeGreaterThan(0)
  expect(await page.getByRole('button', { name: `Cancel batch ${big}` }).count()).toBe(0)
  expect(problems).toEqual([])
})
