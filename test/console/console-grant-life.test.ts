import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb'
import type { Browser, Page } from 'playwright-core'
import { makeGrantLife } from '../../functions/core/grant-life'
import type { GrantRecord } from '../../functions/domain/grant'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import type { LOCAL_TABLES } from '../../local/local-env'
import { drainNpmStart } from '../support/pipeline'
import {
  type ConsoleServer,
  checkPage,
  SET_UP_MS,
  signedInMember,
  startOwnServerAndBrowser,
  visible,
  watchConsole,
} from './browser'

/**
 * A grant's life in the console (issue 19), in Chromium against a real `npm start`: the offer
 * e-mail previewed before "send one"; the grant's page with its timeline, a delivery failure
 * shown, resend, correct the e-mail and cancel (admin), and no buttons for a viewer; a program's
 * offer settings, their errors next to the fields and the terms' version; the TEST inbox, each
 * message rendered in a sandboxed frame whose link opens the recipient's page. Each page is
 * checked by axe-core and photographed.
 */
// What page.evaluate callbacks read in the browser: the root tsconfig has Node's types, not the DOM's.
declare const getComputedStyle: (element: unknown) => { backgroundColor: string }

let server: ConsoleServer
let browser: Browser
let db: DynamoDBDocumentClient
let tables: typeof LOCAL_TABLES

beforeAll(async () => {
  ;({ server, browser } = await startOwnServerAndBrowser())
  // The server's DynamoDB Local and table names, as the admin CLI reads them.
  const running = JSON.parse(readFileSync(join(server.dir, 'dynamodb-endpoint.json'), 'utf8')) as {
    endpoint: string
    tables: typeof LOCAL_TABLES
  }
  tables = running.tables
  db = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: running.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    { marshallOptions: { removeUndefinedValues: true } },
  )
}, SET_UP_MS)

afterAll(() => db?.destroy())

const address = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.com`

/** A person invited by the operator with `role`, signed in to the console. */
const signedIn = (role: string) => signedInMember(server, browser, role)

const grantOf = async (grantId: string) =>
  (
    await db.send(
      new GetCommand({ TableName: tables.grants, Key: { grantId }, ConsistentRead: true }),
    )
  ).Item as GrantRecord

const at = (page: Page, path: string) => page.goto(`/app/${server.seed.issuerId}/${path}`)

it('previews the e-mail before sending one, then shows the grant’s page and its life', async () => {
  const { page } = await signedIn('admin')
  const problems = watchConsole(page)
  await at(page, `live/programs/${server.seed.programs.LIVE}`)
  await visible(page.getByRole('heading', { name: 'Send one grant' }))
  const recipient = address('recipient')
  await page.getByLabel('Recipient e-mail', { exact: true }).fill(recipient)
  await page.getByLabel('Recipient name', { exact: true }).fill('Ann Example')
  await page.getByLabel('Reason', { exact: true }).fill('Thanks for the bug report')
  await page.getByLabel('Amount', { exact: true }).fill('1,500')
  await page.getByRole('button', { name: 'Preview grant and e-mail' }).click()

  // The preview: the service's own rendering, in a sandboxed frame, styled, with its link.
  const frame = await visible(page.locator('iframe.mail-frame'))
  expect(await frame.getAttribute('sandbox')).toBe(
    'allow-same-origin allow-popups allow-popups-to-escape-sandbox',
  )
  const mail = page.frameLocator('iframe.mail-frame')
  await visible(mail.getByText('Thanks for the bug report').first())
  expect(await mail.locator('body').innerText()).toMatch(/1,500/)
  // Its inline styles applied through the CSSOM (the console's CSP refuses style attributes).
  expect(await mail.locator('body').evaluate((b) => getComputedStyle(b).backgroundColor)).not.toBe(
    'rgba(0, 0, 0, 0)',
  )
  await checkPage(page, 'console-send-preview')
  await page.getByRole('button', { name: 'Send grant' }).click()
  const sent = await visible(page.getByRole('status').filter({ hasText: 'Granted 1,500 shares' }))
  const grantId = /grant (gr_[0-9a-z]{26})/.exec(await sent.innerText())?.[1] as string
  expect(grantId).toMatch(/^gr_/)

  // The offer mailer (npm start's pipeline) sends it; then a bounce, recorded as the SES events
  // handler records one (core/grant-life.ts recordDelivery): the page shows the delivery failed.
  await drainNpmStart(server.baseUrl)
  expect((await grantOf(grantId)).offer?.delivery).toBe('sent')
  const life = makeGrantLife({
    store: new DynamoDbGrantLifeStore(db, tables),
    clock: () => Date.now(),
  })
  expect(
    await life.recordDelivery({ grantId, event: 'bounced', detail: 'Permanent: General' }),
  ).toBe('done')

  // The grant's page from the program's list.
  await page.getByRole('link', { name: grantId }).click()
  await visible(page.getByRole('heading', { name: /Grant of 1,500 shares to/ }))
  await visible(page.getByRole('alert').filter({ hasText: 'could not be delivered' }))
  await visible(page.getByText('Delivery failed: the e-mail bounced'))

  // Correct the e-mail: a wrong one is refused next to the field, a right one is taken.
  await page.getByRole('button', { name: 'Correct e-mail' }).click()
  const dialog = await visible(page.getByRole('dialog', { name: 'Correct the recipient’s e-mail' }))
  await dialog.getByLabel('New e-mail address').fill('not an address')
  await dialog.getByRole('button', { name: 'Correct and resend' }).click()
  await visible(dialog.getByText('Enter a valid e-mail address'))
  const fixed = address('fixed')
  await dialog.getByLabel('New e-mail address').fill(fixed)
  await dialog.getByRole('button', { name: 'Correct and resend' }).click()
  await visible(page.getByRole('status').filter({ hasText: `The offer goes to ${fixed}` }))
  await visible(page.getByText('Recipient address corrected'))
  expect((await grantOf(grantId)).recipient.email).toBe(fixed)

  // Resend: the corrected address was just sent the offer, so a resend within 10 minutes is
  // refused in the service's words; 11 minutes later (npm start's clock moved) it goes.
  const resend = page.getByRole('dialog', { name: 'Resend the offer?' })
  await page.getByRole('button', { name: 'Resend offer' }).click()
  await resend.getByRole('button', { name: 'Resend offer' }).click()
  await visible(resend.getByRole('alert').filter({ hasText: 'can be sent again in' }))
  await resend.getByRole('button', { name: 'Cancel' }).click()
  // Closed, the refusal stays next to the button that asked (console/src/ui-pages.tsx ConfirmButton).
  await visible(page.getByRole('alert').filter({ hasText: 'can be sent again in' }))
  const moved = await fetch(`${server.baseUrl}/_local/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advanceMs: 11 * 60_000 }),
  })
  expect(moved.status).toBe(200)
  await page.getByRole('button', { name: 'Resend offer' }).click()
  await resend.getByRole('button', { name: 'Resend offer' }).click()
  await visible(page.getByRole('status').filter({ hasText: 'on its way' }))
  expect((await grantOf(grantId)).offer?.resendRequestedAt).toBeDefined()

  // Cancel: the shares go back; the timeline says who.
  await page.getByRole('button', { name: 'Cancel grant' }).click()
  await page
    .getByRole('dialog', { name: 'Cancel this grant?' })
    .getByRole('button', { name: 'Cancel grant' })
    .click()
  await visible(page.getByRole('status').filter({ hasText: 'Grant canceled' }))
  await visible(page.getByText(/^Canceled$/))
  expect((await grantOf(grantId)).status).toBe('canceled')
  expect(await page.getByRole('button', { name: 'Cancel grant' }).count()).toBe(0)
  await checkPage(page, 'console-grant-timeline')
  expect(problems.filter((p) => !/status of (400|409|429)/.test(p))).toEqual([])

  // A viewer sees the same page without any button that changes the grant.
  const viewer = await signedIn('viewer')
  await at(viewer.page, `live/grants/${grantId}`)
  await visible(viewer.page.getByRole('heading', { name: /Grant of 1,500 shares/ }))
  await visible(viewer.page.getByRole('heading', { name: 'Timeline' }))
  for (const name of ['Cancel grant', 'Resend offer', 'Correct e-mail']) {
    expect(await viewer.page.getByRole('button', { name }).count()).toBe(0)
  }
})

it('changes a program’s offer settings: errors next to the fields, the terms’ version shown', async () => {
  const { page } = await signedIn('admin')
  const problems = watchConsole(page)
  await at(page, `test/programs/${server.seed.programs.TEST}`)
  await page.getByRole('button', { name: 'Change offer settings' }).click()
  await page.getByLabel('Offer window (days)').fill('400')
  await page.getByLabel('Minimum age').fill('12')
  await page.getByLabel('Allowed countries').fill('DE, XX')
  await page.getByRole('radio', { name: 'Link' }).check()
  await page.getByLabel('Terms link').fill('http://example.com/terms')
  await page.getByRole('button', { name: 'Save offer settings' }).click()
  // The page's own check, with the service's rules: each message next to its field.
  for (const [label, text] of [
    ['Offer window (days)', 'from 1 to 365'],
    ['Minimum age', 'from 13 to 120'],
    ['Allowed countries', 'ISO 3166-1 alpha-2'],
    ['Terms link', 'https://'],
  ] as const) {
    const field = page.getByLabel(label, { exact: true })
    expect(await field.getAttribute('aria-invalid')).toBe('true')
    const describedBy = (await field.getAttribute('aria-describedby')) ?? ''
    const said = await page.locator(`[id="${describedBy.split(' ').pop()}"]`).innerText()
    expect({ label, said }).toEqual({ label, said: expect.stringContaining(text) })
  }
  await checkPage(page, 'console-offer-settings-errors')

  await page.getByLabel('Offer window (days)').fill('21')
  await page.getByLabel('Minimum age').fill('18')
  await page.getByLabel('Allowed countries').fill('de, fr')
  await page.getByLabel('Description').fill('Shares for the people who build with us.')
  await page.getByRole('radio', { name: 'Text' }).check()
  await page.getByLabel('Terms text').fill('These are the Terms of Virtual Shares.')
  await page.getByRole('button', { name: 'Save offer settings' }).click()
  await visible(page.getByRole('status').filter({ hasText: 'The terms are now version 1' }))
  const settings = page.getByRole('region', { name: 'Offer settings' })
  await visible(settings.getByText('21 days'))
  await visible(settings.getByText('DE, FR'))
  await visible(settings.getByText(/Version 1: text of 38 characters/))

  await page.getByRole('button', { name: 'Change offer settings' }).click()
  await page.getByLabel('Terms text').fill('These are the Terms of Virtual Shares, revised.')
  await page.getByRole('button', { name: 'Save offer settings' }).click()
  await visible(page.getByRole('status').filter({ hasText: 'The terms are now version 2' }))
  await page.getByRole('button', { name: 'Change offer settings' }).click()
  await visible(page.getByText('now version 2; a change makes the next version'))
  // The form edits the text as stored (kept in its own item, served with the program).
  expect(await page.getByLabel('Terms text').inputValue()).toBe(
    'These are the Terms of Virtual Shares, revised.',
  )
  await checkPage(page, 'console-offer-settings')
  await page.getByRole('button', { name: 'Cancel' }).click()
  expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([])
})

it('shows the TEST inbox, each message rendered, its link opening the recipient’s page', async () => {
  const { page, context } = await signedIn('viewer')
  const problems = watchConsole(page)
  // A TEST grant through the API: npm start's pipeline (the grants table's stream, GrantStream,
  // OfferMail, OfferMailer) writes its offer e-mail to the issuer's TEST inbox, never to SES.
  const recipient = address('inbox')
  const made = await fetch(`${server.baseUrl}/programs/${server.seed.programs.TEST}/grant-tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': server.seed.keys.TEST },
    body: JSON.stringify({
      recipient: { email: recipient, name: 'Ines' },
      reason: 'Beta tester',
      amount: 40,
    }),
  })
  expect(made.status).toBe(201)
  const { id: grantId } = (await made.json()) as { id: string }

  // The message arrives after the request, through the pipeline: once that has gone through, the
  // inbox (and its Refresh) shows it.
  await drainNpmStart(server.baseUrl)
  await page.getByRole('link', { name: 'TEST inbox' }).click()
  await visible(page.getByRole('heading', { name: 'TEST inbox', level: 1 }))
  await page.getByRole('button', { name: 'Refresh' }).click()
  const message = page.getByRole('article').filter({ hasText: recipient })
  await visible(message.getByRole('link', { name: `Grant ${grantId}` }))
  const frame = message.frameLocator('iframe.mail-frame')
  await visible(frame.getByText('Beta tester').first())
  await checkPage(page, 'console-test-inbox')

  // The message's link opens the recipient's page in a new tab, with its token in the fragment.
  const link = frame.locator('a[href*="/offer#t="]').first()
  expect(await link.getAttribute('href')).toMatch(/\/offer#t=[A-Za-z0-9_-]+$/)
  const [offer] = await Promise.all([context.waitForEvent('page'), link.click()])
  await offer.waitForLoadState()
  // The page takes the token out of the address bar once read.
  expect(new URL(offer.url()).pathname).toBe('/offer')
  await visible(offer.getByText('Beta tester').first())
  expect(problems).toEqual([])
})
