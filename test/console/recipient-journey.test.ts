import { randomUUID } from 'node:crypto'
import type { Browser, Page } from 'playwright-core'
import type { Mail } from '../../local/mail-sink'
import { drainNpmStart } from '../support/pipeline'
import {
  type ConsoleServer,
  checkPage,
  invitedMember,
  mailTo,
  newContext,
  SET_UP_MS,
  screenshot,
  startOwnServerAndBrowser,
  visible,
} from './browser'

/**
 * Issue 19's whole flow, in Chromium against a real `npm start` (DynamoDB Local and its stream,
 * the local queue and mail worker, the sweep on npm start's clock, the Cognito emulator, the built
 * console and recipient page): a LIVE offer opened from its e-mail, identified and accepted, which
 * the integrator's GET and the balance then show; a decline and an ineligible country that give
 * their shares back to the pool; an expiry (npm start's clock moved) that does too; a TEST grant
 * whose e-mail is in the console's TEST inbox, never handed to a mailer; and every magic address
 * reaching its state. Each page is checked by axe-core and photographed; the e-mail's image is the
 * docs' (docs/recipient-offer-email.png).
 */
let server: ConsoleServer
let browser: Browser
let console: Page

beforeAll(async () => {
  ;({ server, browser } = await startOwnServerAndBrowser())
  // An admin of the seeded issuer, signed in to the console (the TEST inbox, offer settings).
  const { email, temporary } = await invitedMember(server, 'admin')
  const context = await newContext(browser, server.baseUrl)
  console = await context.newPage()
  await console.goto('/app/accept')
  await visible(console.getByRole('heading', { name: 'Accept your invitation' }))
  await console.getByLabel('E-mail address').fill(email)
  await console.getByLabel('Temporary password').fill(temporary)
  const password = 'a long passphrase for offers'
  await console.getByLabel('New password', { exact: true }).fill(password)
  await console.getByLabel('Repeat the new password').fill(password)
  await console.getByRole('button', { name: 'Set password and sign in' }).click()
  await visible(console.getByRole('heading', { name: 'Programs' }))
}, SET_UP_MS)

type Mode = 'TEST' | 'LIVE'

const call = async (method: string, path: string, mode: Mode, body?: unknown) => {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: {
      'x-api-key': server.seed.keys[mode],
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

const grant = async (mode: Mode, email: string, amount: number) => {
  const made = await call('POST', `/programs/${server.seed.programs[mode]}/grant-tokens`, mode, {
    recipient: { email, name: 'Ann Example' },
    reason: 'Referral bonus',
    amount,
  })
  expect(made.status).toBe(201)
  return made.body.id as string
}

const grantOf = async (mode: Mode, grantId: string) => {
  const read = await call('GET', `/programs/${server.seed.programs[mode]}/grants/${grantId}`, mode)
  expect(read.status).toBe(200)
  return read.body as {
    status: string
    rejectionReason: string | null
    delivery: string
    history: { event: string; state?: string }[]
  }
}

/**
 * The pool's books through the integrator's own reads: what the program's GET says is left, and
 * the pool less the shares of every reserved, offered and accepted grant its listing shows. The
 * two agree exactly when every share that left came back once.
 */
const books = async (mode: Mode) => {
  const counted: number[] = []
  let cursor: string | undefined
  do {
    const page = await call(
      'GET',
      `/programs/${server.seed.programs[mode]}/grants?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      mode,
    )
    expect(page.status).toBe(200)
    for (const g of page.body.data as { status: string; amount: number }[]) {
      if (['reserved', 'offered', 'accepted'].includes(g.status)) counted.push(g.amount)
    }
    cursor = page.body.nextCursor ?? undefined
  } while (cursor)
  const program = await call('GET', `/programs/${server.seed.programs[mode]}`, mode)
  return {
    remaining: program.body.remaining as number,
    fromGrants: (program.body.pool as number) - counted.reduce((a, b) => a + b, 0),
  }
}

/** What is left of a program's pool, as the integrator's GET shows it. */
const remaining = async (mode: Mode) => {
  const read = await call('GET', `/programs/${server.seed.programs[mode]}`, mode)
  expect(read.status).toBe(200)
  return read.body.remaining as number
}

const address = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.com`

const linkIn = (mail: Mail) => {
  const link = /(https?:\/\/\S+\/offer#t=[A-Za-z0-9_-]{43})/.exec(mail.text)?.[1]
  if (link === undefined) throw new Error(`no offer link in ${mail.text}`)
  return link
}

/** The offer, opened from its e-mail in a browser of its own (the recipient's). */
const openOffer = async (link: string) => {
  const context = await newContext(browser, server.baseUrl)
  const page = await context.newPage()
  await page.goto(link)
  await visible(page.getByLabel('Your full name'))
  return page
}

it('a LIVE offer: mailed, opened, identified and accepted; the integrator sees it accepted and the balance counts it', async () => {
  const email = address('ann')
  const before = await remaining('LIVE')
  const grantId = await grant('LIVE', email, 5)
  expect(await remaining('LIVE')).toBe(before - 5)
  await drainNpmStart(server.baseUrl)
  const mail = await mailTo(server, email)
  expect(mail.subject).toContain('5')
  expect(mail.text).toContain('Referral bonus')
  // The e-mail as the recipient's mail program shows it: the image the docs use.
  const mailPage = await (await newContext(browser, server.baseUrl)).newPage()
  // The link's token is a secret even on a throwaway server: the image shows a placeholder.
  const shown = (mail.html ?? `<pre>${mail.text}</pre>`).replaceAll(
    /#t=[A-Za-z0-9_-]{43}/g,
    '#t=(your-link-token)',
  )
  await mailPage.setContent(shown)
  await screenshot(mailPage, 'recipient-offer-email', 'recipient-offer-email.png')

  // Opening the link changes nothing (mail scanners open links first).
  const page = await openOffer(linkIn(mail))
  expect((await grantOf('LIVE', grantId)).status).toBe('reserved')
  await checkPage(page, 'journey-offer')
  await page.getByLabel('Your full name').fill('Ann Example')
  await page.getByRole('button', { name: 'Confirm my details' }).click()
  await visible(page.getByRole('button', { name: 'Accept 5 shares' }))
  expect((await grantOf('LIVE', grantId)).status).toBe('offered')
  await page.getByLabel('I accept this offer.').check()
  await page.getByRole('button', { name: 'Accept 5 shares' }).click()
  await visible(page.getByRole('status').filter({ hasText: 'Accepted' }))
  await checkPage(page, 'journey-accepted')

  const accepted = await grantOf('LIVE', grantId)
  expect(accepted.status).toBe('accepted')
  expect(accepted.delivery).toBe('sent')
  expect(accepted.history.filter((h) => h.event === 'transition').map((h) => h.state)).toEqual([
    'offered',
    'accepted',
  ])
  const balance = await call(
    'GET',
    `/programs/${server.seed.programs.LIVE}/recipients/${encodeURIComponent(email)}/balance`,
    'LIVE',
  )
  expect(balance.status).toBe(200)
  expect(balance.body).toMatchObject({
    tokenAmount: 5,
    person: { email, dateOfBirth: null },
  })
  // Accepted shares stay issued.
  expect(await remaining('LIVE')).toBe(before - 5)
})

it('a decline and an ineligible country give their shares back to the pool', async () => {
  // The program limits countries, set in the console's offer settings.
  await console.goto(`/app/${server.seed.issuerId}/live/programs/${server.seed.programs.LIVE}`)
  await visible(console.getByRole('heading', { name: 'Offer settings' }))
  await console.getByRole('button', { name: 'Change offer settings' }).click()
  await console.getByLabel('Allowed countries').fill('DE, FR')
  await console.getByRole('button', { name: 'Save offer settings' }).click()
  await visible(console.getByText('DE, FR'))
  await checkPage(console, 'journey-offer-settings')

  const before = await remaining('LIVE')
  const declining = address('dee')
  const abroad = address('ian')
  const declined = await grant('LIVE', declining, 3)
  const ineligible = await grant('LIVE', abroad, 4)
  expect(await remaining('LIVE')).toBe(before - 7)
  await drainNpmStart(server.baseUrl)

  const first = await openOffer(linkIn(await mailTo(server, declining)))
  await first.getByRole('button', { name: 'Decline this offer' }).click()
  await first.getByRole('button', { name: 'Yes, decline' }).click()
  await visible(first.getByRole('status').filter({ hasText: 'Declined' }))
  expect(await grantOf('LIVE', declined)).toMatchObject({
    status: 'rejected',
    rejectionReason: 'declined',
  })

  const second = await openOffer(linkIn(await mailTo(server, abroad)))
  await second.getByLabel('Your full name').fill('Ian Abroad')
  await second.getByLabel('Country where you live').selectOption('US')
  await second.getByRole('button', { name: 'Confirm my details' }).click()
  await visible(second.getByRole('status').filter({ hasText: /eligible/i }))
  await checkPage(second, 'journey-ineligible')
  expect(await grantOf('LIVE', ineligible)).toMatchObject({
    status: 'rejected',
    rejectionReason: 'ineligible_country',
  })
  expect(await remaining('LIVE')).toBe(before)
  const exact = await books('LIVE')
  expect(exact.remaining).toBe(exact.fromGrants)
})

it('a TEST grant: its e-mail is in the console’s TEST inbox with a working link, and each magic address reaches its state', async () => {
  const email = address('tess')
  const grantId = await grant('TEST', email, 2)
  const magic = {
    accept: await grant('TEST', `accept+${randomUUID().slice(0, 6)}@example.com`, 1),
    decline: await grant('TEST', `decline+${randomUUID().slice(0, 6)}@example.com`, 1),
    ineligible: await grant('TEST', `ineligible+${randomUUID().slice(0, 6)}@example.com`, 1),
    bounce: await grant('TEST', `bounce+${randomUUID().slice(0, 6)}@example.com`, 1),
    complain: await grant('TEST', `complain+${randomUUID().slice(0, 6)}@example.com`, 1),
    expire: await grant('TEST', `expire+${randomUUID().slice(0, 6)}@example.com`, 1),
  }
  await drainNpmStart(server.baseUrl)
  expect((await grantOf('TEST', grantId)).delivery).toBe('test_inbox')
  expect(await grantOf('TEST', magic.accept)).toMatchObject({ status: 'accepted' })
  expect(await grantOf('TEST', magic.decline)).toMatchObject({
    status: 'rejected',
    rejectionReason: 'declined',
  })
  expect(await grantOf('TEST', magic.ineligible)).toMatchObject({
    status: 'rejected',
    rejectionReason: 'ineligible_country',
  })
  expect(await grantOf('TEST', magic.bounce)).toMatchObject({
    status: 'reserved',
    delivery: 'failed',
  })
  expect(await grantOf('TEST', magic.complain)).toMatchObject({ delivery: 'failed' })
  expect(await grantOf('TEST', magic.expire)).toMatchObject({ status: 'expired' })

  // The TEST inbox shows the e-mail as rendered; its link opens the recipient's page.
  await console.goto(`/app/${server.seed.issuerId}/test/inbox`)
  await visible(console.getByRole('heading', { name: 'TEST inbox', level: 1 }))
  const message = console.getByRole('article').filter({ hasText: email })
  await visible(message)
  await checkPage(console, 'journey-test-inbox', 'recipient-test-inbox.png')
  const link = await message
    .frameLocator('iframe.mail-frame')
    .locator('a[href*="/offer#t="]')
    .first()
    .getAttribute('href')
  expect(link).toMatch(/\/offer#t=[A-Za-z0-9_-]{43}$/)
  const page = await openOffer(new URL(link ?? '', server.baseUrl).href)
  await visible(page.getByText('Referral bonus'))
})

it('an offer nobody answers expires when npm start’s clock passes its window, and its shares return', async () => {
  const email = address('eve')
  const before = await remaining('LIVE')
  const grantId = await grant('LIVE', email, 6)
  await drainNpmStart(server.baseUrl)
  const link = linkIn(await mailTo(server, email))
  expect(await remaining('LIVE')).toBe(before - 6)
  // 31 days on: the sweep runs at once and expires the offer.
  const moved = await fetch(`${server.baseUrl}/_local/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advanceMs: 31 * 24 * 60 * 60 * 1000 }),
  })
  expect(moved.status).toBe(200)
  await drainNpmStart(server.baseUrl)
  expect(await grantOf('LIVE', grantId)).toMatchObject({ status: 'expired' })
  // Its 6 shares are back (with any other offer of this server the month made expire too), and
  // the books agree exactly.
  expect(await remaining('LIVE')).toBeGreaterThanOrEqual(before)
  const after = await books('LIVE')
  expect(after.remaining).toBe(after.fromGrants)
  // Its link now asks for the address, and answers the same whatever it is given.
  const context = await newContext(browser, server.baseUrl)
  const page = await context.newPage()
  await page.goto(link)
  await visible(page.getByLabel('Your e-mail address'))
})
