import type { Browser, Page } from 'playwright-core'
import {
  type ConsoleServer,
  checkPage,
  SET_UP_MS,
  signedInMember,
  startServerAndBrowser,
  visible,
  watchConsole,
} from './browser'

/**
 * Send to many from a file, in Chromium against a real `npm start`: the console asks for an
 * upload, POSTs the file to the upload receiver with the presigned fields (S3's browser-based
 * upload), dry-runs and commits from it. The console is opened at `localhost` and the receiver is
 * at `127.0.0.1`: another origin, as the bucket is in AWS, so the page's CSP (connect-src names the
 * receiver) and the receiver's CORS rule (the console's origin) are both what lets it through.
 * A file of the wrong type or too large is refused next to the field before anything is sent; a
 * form the receiver refuses (its Content-Type changed on the way) shows S3's refusal there too.
 */
// What page.evaluate callbacks read in the browser: the root tsconfig has Node's types, not the DOM's.
declare const DataTransfer: new () => { items: { add(file: File): void }; files: unknown }
type FileInput = { files: unknown; dispatchEvent(event: Event): boolean }

let server: ConsoleServer
let browser: Browser

beforeAll(async () => {
  ;({ server, browser } = await startServerAndBrowser())
}, SET_UP_MS)

/** The console at `localhost` (the receiver stays at 127.0.0.1), an admin signed in. */
const signedInAdmin = () =>
  signedInMember(server, browser, 'admin', {
    origin: server.baseUrl.replace('127.0.0.1', 'localhost'),
    who: 'uploader',
  })

const sendMany = (page: Page) =>
  page.goto(`/app/${server.seed.issuerId}/test/programs/${server.seed.programs.TEST}/send-many`)

const fieldError = (page: Page) => page.locator('.field.has-error .field-error')

it('uploads a chosen file across origins, dry-runs and commits it; refuses the wrong type, a file too large and a refused upload next to the field', async () => {
  const { page, context } = await signedInAdmin()
  const problems = watchConsole(page)
  const posts: { url: string; status: number; allowOrigin: string | null }[] = []
  page.on('response', (response) => {
    if (response.url().includes('/_local/uploads/')) {
      posts.push({
        url: response.url(),
        status: response.status(),
        allowOrigin: response.headers()['access-control-allow-origin'] ?? null,
      })
    }
  })
  await sendMany(page)
  await visible(page.getByRole('heading', { name: 'Send to many' }))
  const file = page.getByLabel('CSV file')

  // Not a CSV: said next to the field, nothing asked of the service.
  await file.setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from('png') })
  expect(await (await visible(fieldError(page))).innerText()).toContain(
    'photo.png is not a CSV file',
  )
  // Over 32 MB: the same, before any upload. The file is made in the page and chosen as a person's
  // choice is told (input, change): 32 MB from here would be copied over the run's Chromium socket.
  await file.evaluate(
    (input, size) => {
      const chosen = new DataTransfer()
      chosen.items.add(new File([new Uint8Array(size).fill(97)], 'huge.csv', { type: 'text/csv' }))
      const field = input as unknown as FileInput
      field.files = chosen.files
      field.dispatchEvent(new Event('input', { bubbles: true }))
      field.dispatchEvent(new Event('change', { bubbles: true }))
    },
    32 * 1024 * 1024 + 1,
  )
  expect(await (await visible(fieldError(page))).innerText()).toMatch(
    "huge.csv is 32 MB (33,554,433 bytes); a batch's file can be at most 32 MB (33,554,432 bytes).",
  )
  expect(posts).toEqual([])

  // A form the receiver refuses (its Content-Type field changed on the way): S3's refusal, by the field.
  // A few chunks of rows (the volume is the bench row upload-batch: 20,000 rows).
  const rows = Array.from({ length: 250 }, (_, i) => `up${i}@example.com,Up ${i},1,Upload test`)
  const csv = `email,name,amount,reason\n${rows.join('\n')}\n`
  await page.route('**/_local/uploads/**', async (route) => {
    const body = route.request().postDataBuffer()?.toString('latin1') ?? ''
    await route.continue({
      postData: Buffer.from(
        body.replace(/(name="Content-Type"\r\n\r\n)text\/csv/, '$1text/html'),
        'latin1',
      ),
    })
  })
  await file.setInputFiles({ name: 'rewards.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
  await page.getByRole('button', { name: 'Check the CSV' }).click()
  expect(await (await visible(fieldError(page))).innerText()).toMatch(
    /could not be uploaded: the upload was refused \(403 AccessDenied: Invalid according to Policy: Policy Condition failed/,
  )
  await page.unroute('**/_local/uploads/**')

  // The same file, untouched: uploaded (cross-origin: CSP and CORS let it), checked, sent.
  await page.getByRole('button', { name: 'Check the CSV' }).click()
  await visible(page.getByText('Every row is ready to send.'))
  await checkPage(page, 'send-many-upload-preview')
  expect(posts.map((p) => [p.status, p.allowOrigin])).toEqual([
    [403, new URL(page.url()).origin],
    [204, new URL(page.url()).origin],
  ])
  expect(new URL(posts[1]?.url as string).origin).not.toBe(new URL(page.url()).origin)
  await page.getByRole('button', { name: 'Send 250 grants' }).click()
  await visible(page.getByRole('heading', { name: /^Batch / }))
  await visible(page.getByText('Done: 250 of 250 rows done, 250 granted, 0 failed'), 60_000)
  // The refused POST is the page's only error (the browser logs the 403 itself).
  expect(problems.filter((p) => !p.includes('403'))).toEqual([])
  await context.close()
}, 300_000)
