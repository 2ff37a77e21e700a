import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { UpdateCommand } from '@aws-sdk/lib-dynamodb'
import type { Browser, Page, Response } from 'playwright-core'
import { makeGrantLife } from '../../functions/core/grant-life'
import type { GrantRecord } from '../../functions/domain/grant'
import type { ProgramTerms } from '../../functions/domain/program'
import { newOfferToken } from '../../functions/domain/recipient-offer'
import { createDocumentClient, createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import { postGrant, request } from '../support/api'
import { drainNpmStart } from '../support/pipeline'
import {
  adminCli,
  type ConsoleServer,
  checkPage,
  mailTo,
  newContext,
  SET_UP_MS,
  startOwnServerAndBrowser,
  tabTo,
  visible,
  watchConsole,
} from './browser'

// What page.evaluate callbacks read in the browser: the root tsconfig has Node's types, not the DOM's.
declare const document: { activeElement: { id: string; textContent: string | null } | null }

/**
 * The recipient's page (`/offer#t=<token>`, console/offer.html) in Chromium against a real
 * `npm start`: the link's token read from the fragment and cleared from the address bar, the
 * offer, the details the program's rules ask for (errors next to their fields), the Terms, accept
 * and decline, an ineligible country, and the form for a new link that always answers the same.
 * Every state is checked by axe-core and photographed (test-output/console/recipient-*.png). Links
 * are made as the mail worker makes them (DynamoDbGrantLifeStore.addOfferToken).
 */
let server: ConsoleServer
let browser: Browser
let store: DynamoDbGrantLifeStore
let documentClient: ReturnType<typeof createDocumentClient>
let tables: { programs: string; grants: string }
let issuerId: string
let key: string
const programs: { main: string; other: string } = { main: '', other: '' }

const TERMS: ProgramTerms = {
  version: 2,
  text: 'The shares are virtual: they carry no vote and no dividend.\nThey vest over twelve months.\nLeaving the company ends unvested shares.',
}

beforeAll(async () => {
  ;({ server, browser } = await startOwnServerAndBrowser())
  const running = JSON.parse(readFileSync(join(server.dir, 'dynamodb-endpoint.json'), 'utf8')) as {
    endpoint: string
    tables: { programs: string; grants: string }
  }
  tables = running.tables
  documentClient = createDocumentClient(
    createDynamoDbClient({ endpoint: running.endpoint, region: 'local' }),
  )
  store = new DynamoDbGrantLifeStore(documentClient, tables)
  ;({ issuerId } = await adminCli(server, ['issuer', 'create', '--name', 'Acme Robotics']))
  for (const [slot, name] of [
    ['main', 'Referral shares'],
    ['other', 'Conference speakers'],
  ] as const) {
    const program = await adminCli(server, [
      'program',
      'create',
      '--issuer',
      issuerId,
      '--mode',
      'LIVE',
      '--name',
      name,
      '--pool',
      '10000',
    ])
    programs[slot] = program.programId
  }
  ;({ secret: key } = await adminCli(server, [
    'key',
    'create',
    '--issuer',
    issuerId,
    '--mode',
    'LIVE',
  ]))
  await setOfferSettings(programs.main, {
    description: 'Virtual shares for people who bring a friend to Acme.',
    minAge: 18,
    countries: ['DE', 'FR', 'NL'],
    terms: TERMS,
  })
  await setOfferSettings(programs.other, {
    description: 'A thank-you for speaking at AcmeConf.',
    countries: ['DE'],
    terms: { version: 1, url: 'https://example.com/terms-v1' },
  })
}, SET_UP_MS)

afterAll(() => documentClient?.destroy())

const setOfferSettings = (programId: string, settings: Record<string, unknown>) => {
  const entries = Object.entries(settings)
  return documentClient.send(
    new UpdateCommand({
      TableName: tables.programs,
      Key: { programId },
      UpdateExpression: `SET ${entries.map(([k]) => `#${k} = :${k}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(entries.map(([k]) => [`#${k}`, k])),
      ExpressionAttributeValues: Object.fromEntries(entries.map(([k, v]) => [`:${k}`, v])),
    }),
  )
}

let unique = 0
const address = (who: string) => `${who}-${Date.now()}-${unique++}@example.com`

const grant = async (programId: string, email: string, amount: number, reason: string) => {
  const call = await postGrant(server.baseUrl, programId, key, {
    recipient: { email, name: 'Ann Example' },
    reason,
    amount,
  })
  expect(call.status).toBe(201)
  return call.body.id as string
}

/**
 * A link for the grant, as the offer mail makes it (the core's issueOfferLink). npm start's own
 * mail worker may add its link or record its delivery at the same moment: the core then makes the
 * link again from a fresh read.
 */
const linkFor = async (grantId: string) => {
  const link = await makeGrantLife({ store, clock: Date.now }).issueOfferLink(grantId)
  if (link === undefined) throw new Error(`no link for ${grantId}: not open, or its offer ended`)
  return link.token
}

const openLink = async (token: string) => {
  const context = await newContext(browser, server.baseUrl)
  const page = await context.newPage()
  const problems = watchConsole(page)
  const scripts: string[] = []
  const failures: string[] = []
  page.on('request', (r) => {
    if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname)
  })
  page.on('response', (r) => {
    if (r.status() >= 400)
      failures.push(`${r.request().method()} ${new URL(r.url()).pathname} ${r.status()}`)
  })
  const response = (await page.goto(`/offer#t=${token}`)) as Response
  return { page, problems, scripts, failures, response }
}

const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '')

/**
 * The id of the element that has the focus once the page has moved it there: the focus moves in an
 * effect after the render that shows the error, so a check made the moment the text appears can
 * come a frame early. Waits up to 5 s, then answers what has the focus.
 */
const focusSettlesOn = async (page: Page, id: string) => {
  for (let i = 0; i < 50; i++) {
    if ((await focusedId(page)) === id) return id
    await page.waitForTimeout(100)
  }
  return focusedId(page)
}

const integratorStatus = async (programId: string, grantId: string) =>
  (
    await request(server.baseUrl, 'GET', `/programs/${programId}/grants/${grantId}`, {
      headers: { 'x-api-key': key },
    })
  ).body.status

it('serves /offer with the console CSP, its own small entry and none of the console code', async () => {
  const [offer, app] = await Promise.all([
    fetch(`${server.baseUrl}/offer`),
    fetch(`${server.baseUrl}/app/`),
  ])
  expect(offer.status).toBe(200)
  expect(offer.headers.get('content-type')).toBe('text/html; charset=utf-8')
  for (const header of [
    'content-security-policy',
    'x-frame-options',
    'referrer-policy',
    'x-content-type-options',
    'strict-transport-security',
  ]) {
    expect({ header, value: offer.headers.get(header) }).toEqual({
      header,
      value: app.headers.get(header),
    })
  }
  expect(offer.headers.get('content-security-policy')).toContain("script-src 'self'")
  const [page, console] = [await offer.text(), await app.text()]
  // No inline script: every <script> has a src.
  expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
  const entry = (html: string) => /<script[^>]*\bsrc="([^"]+)"/.exec(html)?.[1]
  expect(entry(page)).toMatch(/^\/app\/assets\/offer-[\w-]+\.js$/)
  expect(entry(page)).not.toBe(entry(console))
  expect(page).not.toContain('index-')
})

it('opens the link of the offer e-mail that npm start mailed (the mail sink), and accepts', async () => {
  const email = address('mailed')
  const grantId = await grant(programs.other, email, 12, 'Talk on robot arms')
  await drainNpmStart(server.baseUrl)
  const mail = await mailTo(server, email)
  const link = /(https?:\/\/[^\s/]+)\/offer#t=([A-Za-z0-9_-]{43})/.exec(mail.text)
  // The link points at this server's own page (npm start names it localhost).
  expect(new URL(link?.[1] as string).port).toBe(new URL(server.baseUrl).port)
  const { page, problems, failures } = await openLink(link?.[2] as string)
  const offer = await visible(page.getByRole('region', { name: 'Conference speakers' }))
  expect(page.url()).toBe(`${server.baseUrl}/offer`)
  await offer.getByLabel('Your full name').fill('Cy Example')
  await offer.getByLabel('Country where you live').selectOption('DE')
  await offer.getByRole('button', { name: 'Confirm my details' }).click()
  await visible(offer.getByText('Details confirmed.'))
  await visible(offer.getByRole('link', { name: 'Read the Terms of Virtual Shares, version 1' }))
  await offer.getByLabel(/I have read and accept the Terms of Virtual Shares, version 1/).check()
  await offer.getByRole('button', { name: 'Accept 12 shares' }).click()
  await visible(offer.getByText(/You accepted 12 shares on/))
  expect(await integratorStatus(programs.other, grantId)).toBe('accepted')
  expect(failures).toEqual([])
  expect(problems).toEqual([])
  await page.context().close()
})

it('says when a link was tried too often, and when to try again', async () => {
  const grantId = await grant(programs.main, address('busy'), 1, 'Tried too often')
  const token = await linkFor(grantId)
  let status = 0
  while (status !== 429) {
    status = (
      await fetch(`${server.baseUrl}/recipient/offer`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      })
    ).status
    expect([200, 429]).toContain(status)
  }
  const { page } = await openLink(token)
  await visible(
    page.getByRole('alert').filter({ hasText: /Too many attempts\. Try again in \d+ seconds\./ }),
  )
  await visible(page.getByRole('button', { name: 'Try again' }))
  await checkPage(page, 'recipient-too-many')
  await page.context().close()
})

it('walks a LIVE offer: the link read and cleared, details with errors next to the fields, the Terms, accept', async () => {
  const email = address('ann')
  const grantId = await grant(programs.main, email, 25, 'Brought Bo to the team')
  const { page, problems, scripts, failures, response } = await openLink(await linkFor(grantId))
  expect(response.status()).toBe(200)
  const heading = await visible(page.getByRole('heading', { level: 1, name: 'Your share offer' }))
  const offer = page.getByRole('region', { name: 'Referral shares' })
  await visible(offer)
  // The token is gone from the address bar and the history entry.
  expect(page.url()).toBe(`${server.baseUrl}/offer`)
  expect(await focusedId(page)).toBe('')
  expect(
    await heading.evaluate(
      (h) => h === (h.ownerDocument as unknown as typeof document).activeElement,
    ),
  ).toBe(true)
  await expect(
    offer.getByText('Virtual shares for people who bring a friend to Acme.').count(),
  ).resolves.toBe(1)
  await expect(offer.getByText('Brought Bo to the team').count()).resolves.toBe(1)
  await expect(page.getByText(email).count()).resolves.toBe(1)
  // Only the scripts offer.html names (its entry and the chunks it preloads): never the console's
  // entry, nor anything the console's first page loads beyond what both share.
  const named = (html: string) =>
    [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+\.js)"/g)].map((m) => m[1] as string)
  const [offerHtml, appHtml] = await Promise.all(
    ['/offer', '/app/'].map(async (path) => (await fetch(`${server.baseUrl}${path}`)).text()),
  )
  expect(scripts.length).toBeGreaterThan(0)
  expect(scripts.filter((s) => !named(offerHtml as string).includes(s))).toEqual([])
  expect(scripts).not.toContain(/<script[^>]*\bsrc="([^"]+)"/.exec(appHtml as string)?.[1])
  await checkPage(page, 'recipient-offer', 'recipient-offer.png')

  // Nothing filled in: each error next to its field, the focus on the first.
  await offer.getByRole('button', { name: 'Confirm my details' }).click()
  await visible(offer.getByText('Enter your full name.'))
  await expect(offer.getByText('Enter your date of birth.').count()).resolves.toBe(1)
  await expect(offer.getByText('Choose the country where you live.').count()).resolves.toBe(1)
  const name = offer.getByLabel('Your full name')
  expect(await name.getAttribute('aria-invalid')).toBe('true')
  expect(await focusSettlesOn(page, `grant-${grantId}-name`)).toBe(`grant-${grantId}-name`)
  await checkPage(page, 'recipient-errors')
  // A date in the future, by the same rule the API applies.
  await name.fill('Ann Example')
  const tomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10)
  await offer.getByLabel('Date of birth').fill(tomorrow)
  await offer.getByLabel('Country where you live').selectOption('DE')
  await offer.getByRole('button', { name: 'Confirm my details' }).click()
  await visible(offer.getByText('Date of birth must be in the past.'))
  expect(await focusSettlesOn(page, `grant-${grantId}-dateOfBirth`)).toBe(
    `grant-${grantId}-dateOfBirth`,
  )
  expect(await integratorStatus(programs.main, grantId)).toBe('reserved')

  await offer.getByLabel('Date of birth').fill('1990-05-17')
  await offer.getByRole('button', { name: 'Confirm my details' }).click()
  await visible(offer.getByText('Details confirmed.'))
  await visible(offer.getByRole('heading', { name: 'Step 2 of 2: the Terms of Virtual Shares' }))
  await visible(offer.getByRole('region', { name: 'Terms of Virtual Shares, version 2' }))
  expect(await focusedId(page)).toBe('')
  expect(await integratorStatus(programs.main, grantId)).toBe('offered')
  await checkPage(page, 'recipient-terms', 'recipient-terms.png')

  // Accept without ticking the box: said next to it; then accepted, by keyboard.
  await offer.getByRole('button', { name: 'Accept 25 shares' }).click()
  await visible(offer.getByText('Tick the box to accept the Terms, or decline the offer.'))
  const box = offer.getByLabel(/I have read and accept the Terms of Virtual Shares, version 2/)
  await tabTo(page, box)
  await page.keyboard.press('Space')
  await tabTo(page, offer.getByRole('button', { name: 'Accept 25 shares' }))
  await page.keyboard.press('Enter')
  await visible(offer.getByText(/You accepted 25 shares on/))
  expect(await integratorStatus(programs.main, grantId)).toBe('accepted')
  const stored = (await store.findGrant(grantId)) as GrantRecord
  expect(stored.acceptance?.termsVersion).toBe(2)
  expect(stored.identity).toMatchObject({
    name: 'Ann Example',
    country: 'DE',
    age: { atLeast: 18, passed: true },
  })
  await checkPage(page, 'recipient-accepted', 'recipient-accepted.png')

  // Reloaded, the page has no token any more (it was never stored): it asks for the address.
  await page.reload()
  await visible(page.getByRole('heading', { level: 1, name: 'Ask for a new link' }))
  expect(failures).toEqual([])
  expect(problems).toEqual([])
  await page.context().close()
})

it('shows every open offer of the address at this issuer: declines one, is ineligible for the other', async () => {
  const email = address('bo')
  const declined = await grant(programs.main, email, 10, 'Brought Cy to the team')
  const ineligible = await grant(programs.other, email, 40, 'Keynote at AcmeConf')
  await grant(programs.main, address('someone-else'), 99, 'Not for Bo')
  const { page, problems, failures } = await openLink(await linkFor(declined))
  await visible(page.getByRole('heading', { level: 1, name: 'Your share offers' }))
  await expect(page.getByRole('region').count()).resolves.toBe(2)
  await expect(page.getByText('Not for Bo').count()).resolves.toBe(0)
  await checkPage(page, 'recipient-offers')

  const first = page.getByRole('region', { name: 'Referral shares' })
  await first.getByRole('button', { name: 'Decline this offer' }).click()
  await visible(first.getByRole('group', { name: 'Decline this offer?' }))
  await checkPage(page, 'recipient-decline-confirm')
  await first.getByRole('button', { name: 'Yes, decline' }).click()
  await visible(first.getByText('You declined this offer.'))
  expect(await integratorStatus(programs.main, declined)).toBe('rejected')

  // The other program is open to Germany only: someone in the United States is not eligible.
  const second = page.getByRole('region', { name: 'Conference speakers' })
  await expect(second.getByLabel('Date of birth').count()).resolves.toBe(0)
  await second.getByLabel('Your full name').fill('Bo Example')
  await second.getByLabel('Country where you live').selectOption('US')
  await second.getByRole('button', { name: 'Confirm my details' }).click()
  await visible(second.getByText(/not open to people living in the country you gave/))
  expect(await integratorStatus(programs.other, ineligible)).toBe('rejected')
  expect((await store.findGrant(ineligible))?.rejectionReason).toBe('ineligible_country')
  // What was declined a moment ago stays on the page.
  await expect(first.getByText('You declined this offer.').count()).resolves.toBe(1)
  await checkPage(page, 'recipient-ineligible')
  expect(failures).toEqual([])
  expect(problems).toEqual([])
  await page.context().close()
})

it('an unknown or used link asks for the address, and always answers the same', async () => {
  const { page, problems, failures } = await openLink(newOfferToken().token)
  await visible(page.getByRole('heading', { level: 1, name: 'Ask for a new link' }))
  await visible(page.getByText(/This link is not valid any more/))
  expect(page.url()).toBe(`${server.baseUrl}/offer`)
  const field = page.getByLabel('Your e-mail address')
  await field.fill('not an address')
  await page.getByRole('button', { name: 'Send me a new link' }).click()
  await visible(page.getByText('Enter an e-mail address such as name@example.com.'))
  expect(await field.getAttribute('aria-invalid')).toBe('true')
  await checkPage(page, 'recipient-link-invalid')

  const answers: string[] = []
  for (const email of [address('nobody'), address('ann')]) {
    await field.fill(email)
    await page.getByRole('button', { name: 'Send me a new link' }).click()
    const status = await visible(page.getByRole('status').filter({ hasText: 'a new link' }))
    answers.push((await status.textContent()) ?? '')
  }
  expect(answers).toEqual([
    'If an offer for this address is open, a new link is on its way.',
    'If an offer for this address is open, a new link is on its way.',
  ])
  await checkPage(page, 'recipient-link-sent', 'recipient-link-sent.png')
  // The one failed load is the API's answer to the unknown link (404 offer_link_invalid), which
  // Chromium reports on the console as it does every 4xx.
  expect(failures).toEqual(['POST /recipient/offer 404'])
  expect(problems).toEqual([
    'console: Failed to load resource: the server responded with a status of 404 (Not Found)',
  ])
  await page.context().close()
})

it('shows the new Terms when they change while the page is open, and records the version accepted', async () => {
  const program = await adminCli(server, [
    'program',
    'create',
    '--issuer',
    issuerId,
    '--mode',
    'LIVE',
    '--name',
    'Terms that change',
  ])
  await setOfferSettings(program.programId, { terms: { version: 1, text: 'First terms.' } })
  const grantId = await grant(program.programId, address('cy'), 3, 'Early tester')
  const { page, problems, failures } = await openLink(await linkFor(grantId))
  const offer = await visible(page.getByRole('region', { name: 'Terms that change' }))
  await offer.getByLabel('Your full name').fill('Cy Example')
  await offer.getByRole('button', { name: 'Confirm my details' }).click()
  await visible(offer.getByRole('region', { name: 'Terms of Virtual Shares, version 1' }))
  await setOfferSettings(program.programId, { terms: { version: 2, text: 'Second terms.' } })
  await offer.getByLabel(/version 1\./).check()
  await offer.getByRole('button', { name: 'Accept 3 shares' }).click()
  await visible(offer.getByText(/The Terms changed while this page was open/))
  await visible(offer.getByRole('region', { name: 'Terms of Virtual Shares, version 2' }))
  const box = offer.getByLabel(/version 2\./)
  expect(await box.isChecked()).toBe(false)
  expect(await integratorStatus(program.programId, grantId)).toBe('offered')
  await checkPage(page, 'recipient-terms-changed')
  await box.check()
  await offer.getByRole('button', { name: 'Accept 3 shares' }).click()
  await visible(offer.getByText(/You accepted 3 shares on/))
  expect((await store.findGrant(grantId))?.acceptance?.termsVersion).toBe(2)
  // The one refusal: the API's 400 for the old version, which Chromium reports on the console.
  expect(failures).toEqual(['POST /recipient/accept 400'])
  expect(problems).toEqual([
    'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
  ])
  await page.context().close()
})

// Last in the file: npm start's clock only moves forward.
it('an offer whose window passed while the page was open: the link is over, and the page asks for the address', async () => {
  const grantId = await grant(programs.main, address('late'), 5, 'Too late')
  const { page, failures } = await openLink(await linkFor(grantId))
  const offer = await visible(page.getByRole('region', { name: 'Referral shares' }))
  const expiresAt = Date.parse(
    ((await store.findGrant(grantId)) as GrantRecord).expiresAt as string,
  )
  // npm start's clock past the offer's end; its sweep runs at once and expires the grant.
  const moved = await fetch(`${server.baseUrl}/_local/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advanceMs: expiresAt - Date.now() + 60_000 }),
  })
  expect(moved.status).toBe(200)
  expect(await integratorStatus(programs.main, grantId)).toBe('expired')
  await offer.getByLabel('Your full name').fill('Late Example')
  await offer.getByLabel('Date of birth').fill('1990-01-01')
  await offer.getByLabel('Country where you live').selectOption('FR')
  await offer.getByRole('button', { name: 'Confirm my details' }).click()
  await visible(page.getByRole('heading', { level: 1, name: 'Ask for a new link' }))
  await visible(page.getByText(/This link is not valid any more/))
  expect(failures).toEqual(['POST /recipient/identify 404'])
  expect(await integratorStatus(programs.main, grantId)).toBe('expired')
  await checkPage(page, 'recipient-expired')
  await page.context().close()
})
