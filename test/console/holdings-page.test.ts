import { randomUUID } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { parse } from 'csv-parse/sync'
import type { Browser, Page } from 'playwright-core'
import { createDocumentClient, createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import type { Mail } from '../../local/mail-sink'
import { acceptInvitation } from '../support/cognito-call'
import { adminCli, invitedMember } from '../support/local-operator'
import { drainNpmStart } from '../support/pipeline'
import {
  type ConsoleServer,
  checkPage,
  downloadedText,
  newContext,
  SET_UP_MS,
  screenshot,
  startOwnServerAndBrowser,
  visible,
} from './browser'

// What page.evaluate callbacks read in the browser: the root tsconfig has Node's types, not the DOM's.
declare const sessionStorage: { length: number; getItem(key: string): string | null }

/**
 * The recipient's holdings page (`/holdings`, console/holdings.html; issue 32) in Chromium against
 * a real `npm start` of its own (the file moves its clock): a recipient with grants from two
 * issuers asks for a sign-in link, opens it from the local mail sink (LIVE: both issuers) and from
 * the issuer's TEST inbox read through the management API (TEST: that issuer's TEST grants only),
 * sees the shares and their value, accepts an offer on the page, downloads the statement (read
 * back with csv-parse), prints and signs out. An address with no grants gets the same answers and
 * no link; a used, expired or unknown link gets one answer; an idle session ends. Each state is
 * checked by axe-core and photographed (docs/holdings-*.png).
 */
let server: ConsoleServer
let browser: Browser
let documentClient: ReturnType<typeof createDocumentClient>
/** The second issuer, made with the admin CLI, with a LIVE and a TEST program and keys. */
const beta = { issuerId: '', programs: { LIVE: '', TEST: '' }, keys: { LIVE: '', TEST: '' } }
/** A viewer of the seeded issuer's: reads its TEST inbox through the management API. */
let viewerToken: string

beforeAll(async () => {
  ;({ server, browser } = await startOwnServerAndBrowser())
  documentClient = createDocumentClient(
    createDynamoDbClient({ endpoint: server.endpoint, region: 'local' }),
  )
  ;({ issuerId: beta.issuerId } = await adminCli(server, [
    'issuer',
    'create',
    '--name',
    'Beta Labs',
  ]))
  for (const mode of ['LIVE', 'TEST'] as const) {
    const program = await adminCli(server, [
      ...['program', 'create', '--issuer', beta.issuerId, '--mode', mode],
      ...['--name', `Beta ${mode === 'LIVE' ? 'speakers' : 'TEST speakers'}`, '--pool', '1000'],
    ])
    beta.programs[mode] = program.programId
    const key = await adminCli(server, ['key', 'create', '--issuer', beta.issuerId, '--mode', mode])
    beta.keys[mode] = key.secret
  }
  // The value of a share, as the program's value history keeps its newest entry on the program.
  await setValue(server.seed.programs.LIVE, {
    amount: '12.50',
    currency: 'EUR',
    asOf: '2026-11-01',
  })
  await setValue(beta.programs.LIVE, { amount: '3.25', currency: 'USD', asOf: '2026-10-15' })
  await setValue(server.seed.programs.TEST, { amount: '1.00', currency: 'EUR', asOf: '2026-11-01' })
  const viewer = await invitedMember(server, 'viewer', 'inbox-reader')
  viewerToken = await acceptInvitation(server, viewer, 'a long passphrase for the inbox')
}, SET_UP_MS)

afterAll(() => documentClient?.destroy())

const setValue = (programId: string, value: { amount: string; currency: string; asOf: string }) =>
  documentClient.send(
    new UpdateCommand({
      TableName: server.tables.programs,
      Key: { programId },
      UpdateExpression: 'SET #value = :value',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: {
        ':value': { valueId: `val_${randomUUID()}`, ...value, setAt: new Date().toISOString() },
      },
    }),
  )

const call = async (
  method: string,
  path: string,
  init: { key?: string; bearer?: string; body?: unknown; accept?: string } = {},
) => {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: {
      ...(init.key ? { 'x-api-key': init.key } : {}),
      ...(init.bearer ? { authorization: `Bearer ${init.bearer}` } : {}),
      ...(init.accept ? { accept: init.accept } : {}),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  })
  const text = await response.text()
  let body: Record<string, unknown> = {}
  try {
    body = text ? JSON.parse(text) : {}
  } catch {}
  return { status: response.status, body, text }
}

const grant = async (
  programId: string,
  key: string,
  email: string,
  amount: number,
  reason: string,
) => {
  const made = await call('POST', `/programs/${programId}/grant-tokens`, {
    key,
    body: { recipient: { email, name: 'Hana Holder' }, reason, amount },
  })
  expect(made.status).toBe(201)
  return made.body.id as string
}

const address = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.com`

const LINK = /(https?:\/\/[^\s"<]+\/holdings#[A-Za-z0-9_-]{43})/

const linkIn = (text: string) => {
  const link = LINK.exec(text)?.[1]
  if (link === undefined) throw new Error(`no holdings link in ${text}`)
  return link
}

/** Every mail in the sink to `email` whose subject says it is a sign-in link. */
const signInMails = async (email: string) => {
  const mails = (await (await fetch(`${server.baseUrl}/_local/mail.json`)).json()) as Mail[]
  return mails.filter((m) => m.to === email && m.subject.includes('Sign in'))
}

/** The newest sign-in message to `email` in the seeded issuer's TEST inbox (management API). */
const testInboxLink = async (email: string) => {
  const response = await fetch(
    `${server.baseUrl}/manage/issuers/${server.seed.issuerId}/inbox?limit=50`,
    { headers: { authorization: `Bearer ${viewerToken}` } },
  )
  expect(response.status).toBe(200)
  const { data } = (await response.json()) as {
    data: { to: string; subject: string; text: string }[]
  }
  const mail = data.find((m) => m.to === email && m.subject.includes('Sign in'))
  if (!mail) throw new Error(`no TEST sign-in mail to ${email}`)
  return { subject: mail.subject, link: linkIn(mail.text) }
}

/** The page in a browser of its own, at /holdings: asks for a link for `email`. */
const askForLink = async (email: string) => {
  const context = await newContext(browser, server.baseUrl)
  const page = await context.newPage()
  await page.goto('/holdings')
  await visible(page.getByRole('heading', { level: 1, name: 'Sign in to your holdings' }))
  await page.getByLabel('Your e-mail address').fill(email)
  const answered = page.waitForResponse((r) => r.url().endsWith('/recipient/holdings/link'))
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click()
  const response = await answered
  const status = page.getByRole('status').filter({ hasText: 'sign-in link' })
  await visible(status)
  return {
    page,
    status: response.status(),
    body: await response.json(),
    text: await status.innerText(),
  }
}

/** A link opened in a fresh browser (the recipient's mail program opens a new tab). */
const openLink = async (link: string) => {
  const context = await newContext(browser, server.baseUrl)
  const page = await context.newPage()
  const exchanged = page.waitForResponse((r) => r.url().endsWith('/recipient/holdings/session'))
  await page.goto(link)
  const response = await exchanged
  return { page, status: response.status(), body: await response.text() }
}

const storedCount = (page: Page) => page.evaluate(() => sessionStorage.length)

it('holdings across issuers (LIVE): a sign-in link from the mail sink, values, an offer accepted on the page, the statement, print and sign-out', async () => {
  const email = address('hana')
  const accepting = await grant(
    server.seed.programs.LIVE,
    server.seed.keys.LIVE,
    email,
    4,
    'Referral bonus',
  )
  const pending = await grant(beta.programs.LIVE, beta.keys.LIVE, email, 3, 'Spoke at BetaConf')
  const withdrawn = await grant(beta.programs.LIVE, beta.keys.LIVE, email, 2, 'Workshop')
  const canceled = await call(
    'POST',
    `/programs/${beta.programs.LIVE}/grants/${withdrawn}/cancel`,
    {
      key: beta.keys.LIVE,
    },
  )
  expect(canceled.status).toBe(200)
  await drainNpmStart(server.baseUrl)

  const asked = await askForLink(email)
  expect(asked.status).toBe(202)
  expect(asked.body).toEqual({ object: 'holdings_link_request' })
  await checkPage(asked.page, 'holdings-sign-in', 'holdings-sign-in.png')
  await drainNpmStart(server.baseUrl)
  const [mail, ...more] = await signInMails(email)
  expect(more).toEqual([])
  const link = linkIn((mail as Mail).text)

  const { page, status } = await openLink(link)
  expect(status).toBe(201)
  await visible(page.getByRole('heading', { level: 2, name: 'Beta Labs' }))
  // The token is gone from the address bar; the session is this tab's (sessionStorage), never a URL.
  expect(new URL(page.url())).toMatchObject({ pathname: '/holdings', hash: '' })
  expect(await storedCount(page)).toBe(1)
  await visible(page.getByRole('heading', { level: 2, name: 'Demo issuer' }))
  await expect(page.getByText(email).count()).resolves.toBe(1)
  const demo = page.getByRole('region', { name: 'Demo LIVE program' })
  const betaProgram = page.getByRole('region', { name: 'Beta speakers' })
  await visible(demo.getByText('0 shares · 0.00 EUR at 12.50 EUR as of 2026-11-01'))
  await visible(betaProgram.getByText('0 shares · 0.00 USD at 3.25 USD as of 2026-10-15'))
  await visible(betaProgram.getByText('3 shares offered to you and waiting for your answer.'))
  // The canceled grant is history: withdrawn by the issuer.
  const history = betaProgram.getByRole('table', { name: 'History of Beta speakers' })
  await visible(
    history.getByRole('row').filter({ hasText: 'Workshop' }).getByText('Withdrawn by the issuer'),
  )
  await expect(page.getByText('TEST', { exact: false }).count()).resolves.toBe(0)
  await checkPage(page, 'holdings-live', 'holdings-live.png')

  // Accepting on the page: the offer page's own steps, with the session.
  const offer = demo.getByRole('region', { name: 'Offer of 4 shares' })
  await offer.getByLabel('Your full name').fill('Hana Holder')
  await offer.getByRole('button', { name: 'Confirm my details' }).click()
  await visible(offer.getByRole('button', { name: 'Accept 4 shares' }))
  await offer.getByLabel('I accept this offer.').check()
  await offer.getByRole('button', { name: 'Accept 4 shares' }).click()
  await visible(offer.getByRole('status').filter({ hasText: 'Accepted' }))
  await visible(demo.getByText('4 shares · 50.00 EUR at 12.50 EUR as of 2026-11-01'))
  const integrator = await call(
    'GET',
    `/programs/${server.seed.programs.LIVE}/grants/${accepting}`,
    {
      key: server.seed.keys.LIVE,
    },
  )
  expect(integrator.body.status).toBe('accepted')
  await checkPage(page, 'holdings-accepted', 'holdings-accepted.png')

  // The statement: the CSV the API writes, saved by the page.
  const saved = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Download statement (CSV)' }).click()
  const download = await saved
  expect(download.suggestedFilename()).toMatch(/^holdings-live-\d{4}-\d{2}-\d{2}\.csv$/)
  const rows = parse(await downloadedText(download), { columns: true }) as Record<string, string>[]
  expect(rows.map((r) => [r.issuer, r.program, r.grant_id, r.status, r.amount]).sort()).toEqual(
    [
      ['Beta Labs', 'Beta speakers', pending, 'reserved', '3'],
      ['Beta Labs', 'Beta speakers', withdrawn, 'canceled', '2'],
      ['Demo issuer', 'Demo LIVE program', accepting, 'accepted', '4'],
    ].sort(),
  )
  expect(rows.find((r) => r.grant_id === accepting)).toMatchObject({
    token_value: '12.50',
    token_value_currency: 'EUR',
    accepted_value: '50.00',
  })
  await visible(page.getByText('Your statement is saved as a CSV file.'))

  // The printable statement: the holdings and history, nothing to press.
  await page.emulateMedia({ media: 'print' })
  expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(false)
  expect(await demo.getByText('4 shares · 50.00 EUR').isVisible()).toBe(true)
  await screenshot(page, 'holdings-print', 'holdings-print.png')
  await page.emulateMedia({ media: 'screen' })
  expect(await page.getByRole('button', { name: 'Print' }).isEnabled()).toBe(true)

  // Signing out: the session ends at the service and leaves the tab.
  const kept = await page.evaluate(() => sessionStorage.getItem('virtual-shares.holdings-session'))
  const { session } = JSON.parse(kept ?? '{}') as { session: string }
  await page.getByRole('button', { name: 'Sign out' }).click()
  await visible(page.getByText('You signed out.'))
  expect(await storedCount(page)).toBe(0)
  await checkPage(page, 'holdings-signed-out')
  const after = await call('GET', '/recipient/holdings', { bearer: session })
  expect(after.status).toBe(401)
  expect(after.body.code).toBe('session_expired')
})

it('TEST holdings: the link is in the issuer’s TEST inbox (management API) and opens that issuer’s TEST grants only, said to be TEST', async () => {
  const email = address('tess')
  await grant(server.seed.programs.TEST, server.seed.keys.TEST, email, 7, 'Trying the flow')
  await grant(beta.programs.TEST, beta.keys.TEST, email, 9, 'Beta trial')
  await grant(server.seed.programs.LIVE, server.seed.keys.LIVE, email, 1, 'A real one')
  await drainNpmStart(server.baseUrl)
  const asked = await askForLink(email)
  expect(asked.status).toBe(202)
  await drainNpmStart(server.baseUrl)
  // One LIVE link (every issuer), and one TEST link per issuer, in that issuer's TEST inbox (npm
  // start's sink keeps a copy of TEST mail too, as it does of every TEST offer).
  const mailed = await signInMails(email)
  expect(mailed.map((m) => m.subject).sort()).toEqual([
    'Sign in to see your shares',
    '[TEST] Sign in to see your TEST shares from Beta Labs',
    '[TEST] Sign in to see your TEST shares from Demo issuer',
  ])
  const { subject, link } = await testInboxLink(email)
  expect(subject).toBe('[TEST] Sign in to see your TEST shares from Demo issuer')

  const { page, status } = await openLink(link)
  expect(status).toBe(201)
  await visible(page.getByRole('heading', { level: 1, name: 'Your holdings (TEST)' }))
  await visible(page.getByText("These are grants from an issuer's TEST mode", { exact: false }))
  await visible(page.getByRole('heading', { level: 2, name: 'Demo issuer' }))
  const program = page.getByRole('region', { name: 'Demo TEST program' })
  await visible(program.getByText('0 shares · 0.00 EUR at 1.00 EUR as of 2026-11-01'))
  await visible(program.getByRole('region', { name: 'Offer of 7 shares' }))
  // Neither the other issuer's TEST grant nor the LIVE one.
  await expect(page.getByRole('heading', { name: 'Beta Labs' }).count()).resolves.toBe(0)
  await expect(page.getByText('A real one').count()).resolves.toBe(0)
  await checkPage(page, 'holdings-test', 'holdings-test.png')
})

it('an address with no grants gets the same answers and no link: nothing to show', async () => {
  const holder = address('held')
  await grant(server.seed.programs.LIVE, server.seed.keys.LIVE, holder, 2, 'Referral bonus')
  await drainNpmStart(server.baseUrl)
  const nobody = address('nobody')
  const [withGrants, without] = [await askForLink(holder), await askForLink(nobody)]
  expect([without.status, without.body, without.text]).toEqual([
    withGrants.status,
    withGrants.body,
    withGrants.text,
  ])
  await drainNpmStart(server.baseUrl)
  expect(await signInMails(holder)).toHaveLength(1)
  expect(await signInMails(nobody)).toEqual([])
  // A malformed address is the one refusal, next to the field.
  const { page } = without
  await page.getByLabel('Your e-mail address').fill('not-an-address')
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click()
  await visible(page.getByText('Enter an e-mail address such as name@example.com.'))
  expect(await page.getByLabel('Your e-mail address').getAttribute('aria-invalid')).toBe('true')
  await checkPage(page, 'holdings-bad-address')
})

it('a used, an unknown and an expired link get one answer and the form; an idle session ends after 30 minutes', async () => {
  const email = address('ulla')
  await grant(server.seed.programs.LIVE, server.seed.keys.LIVE, email, 5, 'Referral bonus')
  await drainNpmStart(server.baseUrl)
  await askForLink(email)
  await drainNpmStart(server.baseUrl)
  const used = linkIn(((await signInMails(email))[0] as Mail).text)
  const first = await openLink(used)
  expect(first.status).toBe(201)
  await visible(first.page.getByRole('region', { name: 'Demo LIVE program' }))

  const answers: { status: number; body: string }[] = []
  const again = await openLink(used)
  answers.push(again)
  await visible(again.page.getByText('This sign-in link cannot be used', { exact: false }))
  await visible(again.page.getByRole('button', { name: 'Send me a sign-in link' }))
  expect(await storedCount(again.page)).toBe(0)
  await checkPage(again.page, 'holdings-link-used', 'holdings-link-used.png')
  const unknown = await openLink(new URL(`/holdings#${'A'.repeat(43)}`, used).href)
  answers.push(unknown)
  await visible(unknown.page.getByText('This sign-in link cannot be used', { exact: false }))

  // A fresh link, past its 15 minutes on npm start's clock.
  await (await askForLink(email)).page.close()
  await drainNpmStart(server.baseUrl)
  const fresh = linkIn(((await signInMails(email))[0] as Mail).text)
  expect(fresh).not.toBe(used)
  const moved = await fetch(`${server.baseUrl}/_local/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advanceMs: 16 * 60_000 }),
  })
  expect(moved.status).toBe(200)
  const expired = await openLink(fresh)
  answers.push(expired)
  await visible(expired.page.getByText('This sign-in link cannot be used', { exact: false }))
  // One answer: the same status and body (but the request's id) whichever way the link is no good.
  const bodies = answers.map((a) => {
    const { requestId: _, ...problem } = JSON.parse(a.body) as Record<string, unknown>
    return { status: a.status, problem }
  })
  expect(bodies[1]).toEqual(bodies[0])
  expect(bodies[2]).toEqual(bodies[0])
  expect(bodies[0]).toMatchObject({ status: 410, problem: { code: 'link_expired' } })

  // The first session, 16 minutes idle: still on; 31 minutes idle: over, said once, the form back.
  await first.page.reload()
  await visible(first.page.getByRole('region', { name: 'Demo LIVE program' }))
  await fetch(`${server.baseUrl}/_local/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advanceMs: 31 * 60_000 }),
  })
  await first.page.reload()
  await visible(
    first.page.getByText('Your session ended after 30 minutes without activity', { exact: false }),
  )
  expect(await storedCount(first.page)).toBe(0)
  await checkPage(first.page, 'holdings-session-ended')

  // A new link opened in that same tab (only the fragment changes): signed in again.
  await (await askForLink(email)).page.close()
  await drainNpmStart(server.baseUrl)
  const newest = linkIn(((await signInMails(email))[0] as Mail).text)
  expect([used, fresh]).not.toContain(newest)
  const exchanged = first.page.waitForResponse((r) =>
    r.url().endsWith('/recipient/holdings/session'),
  )
  await first.page.goto(newest)
  expect((await exchanged).status()).toBe(201)
  await visible(first.page.getByRole('region', { name: 'Demo LIVE program' }))
  expect(new URL(first.page.url()).hash).toBe('')
})

it('loads under 30 KB of gzipped JavaScript: the scripts /holdings names, none of the console’s', async () => {
  const html = await (await fetch(`${server.baseUrl}/holdings`)).text()
  const scripts = [
    ...html.matchAll(/<script[^>]*\bsrc="([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+\.js)"/g),
  ].map((m) => m[1] as string)
  expect(scripts.length).toBeGreaterThan(0)
  const app = await (await fetch(`${server.baseUrl}/app/`)).text()
  const consoleEntry = /<script[^>]*\bsrc="([^"]+)"/.exec(app)?.[1]
  expect(scripts).not.toContain(consoleEntry)
  let bytes = 0
  for (const src of new Set(scripts)) {
    const body = Buffer.from(await (await fetch(`${server.baseUrl}${src}`)).arrayBuffer())
    expect(body.length).toBeGreaterThan(0)
    bytes += gzipSync(body, { level: 9 }).length
  }
  expect(bytes).toBeLessThanOrEqual(30 * 1024)
})
