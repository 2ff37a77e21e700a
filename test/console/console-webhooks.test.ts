import { EventEmitter, once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser, Page } from 'playwright-core'
import { Webhook } from 'standardwebhooks'
import { WEBHOOK_EVENT_KINDS } from '../../functions/domain/webhook-rules'
import {
  answeredWith,
  type ConsoleServer,
  checkPage,
  errorNextTo,
  NOT_FOUND,
  readsWhileClockRuns,
  SET_UP_MS,
  signedInMember,
  startServerAndBrowser,
  visible,
  watchConsole,
} from './browser'

/**
 * The console's Webhooks pages (issue 21), in Chromium against a real `npm start` (its management
 * API, its Webhooks queue and sender, the same code as the Lambda functions) and a real HTTP
 * receiver on loopback that verifies every delivery with the `standardwebhooks` package (code we
 * did not write) using the secret the page showed once. An admin adds an endpoint (a bad URL gets
 * the API's message next to the field), keeps its secret, sends a test event and sees the attempt
 * in the delivery log (200, latency, the start of the response); a receiver answering 500 shows
 * the failed attempt and the next one's time; rotating keeps the old secret signing; a viewer sees
 * it all without a button. Each page is checked by axe-core and photographed.
 */
// What page.evaluate callbacks read in the browser: the root tsconfig has Node's types, not the DOM's.
declare const navigator: { clipboard: { readText(): Promise<string> } }

let server: ConsoleServer
let browser: Browser

type Received = { path: string; headers: Record<string, string>; body: string; at: number }
const received: Received[] = []
/** Says 'delivery' as each one arrives. */
const arrivals = new EventEmitter()
/** Paths answered with 500, and with 410 Gone; every other path gets 200 "ok". */
const failing = new Set<string>()
const gone = new Set<string>()
let receiver: Server
let receiverUrl: string

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const path = req.url ?? '/'
      received.push({
        path,
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      })
      const status = failing.has(path) ? 500 : gone.has(path) ? 410 : 200
      res.writeHead(status, { 'content-type': 'text/plain' })
      res.end(status === 200 ? 'ok, verified later' : 'receiver is down for maintenance')
      arrivals.emit('delivery')
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
  ;({ server, browser } = await startServerAndBrowser())
}, SET_UP_MS)

afterAll(async () => {
  receiver.closeAllConnections()
  await new Promise((r) => receiver.close(r))
})

/** A person invited by the operator with `role`, signed in to the console; and their API token. */
const signedIn = (role: string) => signedInMember(server, browser, role)

const endpointsPath = () => `/manage/issuers/${server.seed.issuerId}/webhook-endpoints`
const api = async (token: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined }
}
type EndpointView = { endpointId: string; url: string; kinds: string[]; mode: string }
const endpointsOf = async (token: string, mode: 'TEST' | 'LIVE') =>
  (
    (await api(token, 'GET', `${endpointsPath()}?mode=${mode}`)).body as {
      endpoints: EndpointView[]
    }
  ).endpoints

const webhooksPage = (page: Page, mode: 'test' | 'live' = 'test') =>
  page.goto(`/app/${server.seed.issuerId}/${mode}/webhooks`)

/** How often the log is read again while a message is pending (console/src/pages/webhooks/delivery-log.tsx). */
const WEBHOOKS_POLL_MS = 3_000

/** The deliveries to `path` so far, once there are at least `n` (waited for as each arrives). */
const deliveriesTo = async (path: string, n = 1, timeoutMs = 30_000) => {
  const signal = AbortSignal.timeout(timeoutMs)
  for (;;) {
    const mine = received.filter((r) => r.path === path)
    if (mine.length >= n) return mine
    await once(arrivals, 'delivery', { signal }).catch(() => {
      throw new Error(`${mine.length} deliveries to ${path} after ${timeoutMs} ms, not ${n}`)
    })
  }
}

/** The delivery log's reads while the page's clock runs `ms` on (its timers fire at once). */
const logReads = (page: Page, ms: number) =>
  readsWhileClockRuns(page, (path) => path.endsWith('/messages'), ms)

/** What a receiver does with `standardwebhooks`: the payload, or a throw (bad signature or time). */
const verify = (secret: string, delivery: Received) =>
  new Webhook(secret).verify(delivery.body, {
    'webhook-id': delivery.headers['webhook-id'] as string,
    'webhook-timestamp': delivery.headers['webhook-timestamp'] as string,
    'webhook-signature': delivery.headers['webhook-signature'] as string,
  }) as { type: string; data: Record<string, unknown> }

/** Adds an endpoint through the form: the secret the page shows, once. */
const addEndpoint = async (page: Page, url: string, description: string) => {
  await page.getByLabel('Endpoint URL', { exact: true }).fill(url)
  await page.getByLabel('Description (optional)').fill(description)
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  const secretField = await visible(page.getByLabel('Signing secret', { exact: true }))
  return secretField.inputValue()
}

const logRow = (page: Page, messageId: string) =>
  page
    .getByRole('table', { name: 'Messages to this endpoint, newest first' })
    .getByRole('row', { name: new RegExp(messageId) })

const ADMIN_BUTTONS = [
  /^Send test event$/,
  /^Change$/,
  /^Disable$/,
  /^Enable$/,
  /^Rotate secret$/,
  /^Delete$/,
  /^Replay/,
  /^Add endpoint$/,
  /^Select/,
]

/** The value of the endpoint page's fact `name`. */
const fact = (page: Page, name: string) =>
  page
    .locator('.facts > div')
    .filter({ has: page.getByRole('term').getByText(name, { exact: true }) })
    .getByRole('definition')

it('adds an endpoint (a bad URL told next to the field), shows its secret once, and logs a test event the receiver verifies with standardwebhooks', async () => {
  const { page, token } = await signedIn('admin')
  const problems = watchConsole(page)
  // The page's timers on Playwright's clock (flowing as real time until runFor moves it on).
  await page.clock.install()
  await page
    .getByRole('navigation', { name: 'Console' })
    .getByRole('link', { name: 'Webhooks' })
    .click()
  await visible(page.getByRole('heading', { name: 'Webhooks', level: 1 }))
  await visible(page.getByText('No TEST webhook endpoints yet.'))
  // The event kinds are the service's (functions/domain/webhooks.ts): one checkbox each.
  const kinds = page.getByRole('group', { name: 'Event kinds' }).getByRole('checkbox')
  expect(await kinds.count()).toBe(WEBHOOK_EVENT_KINDS.length)
  await checkPage(page, 'webhooks-empty')

  // A bad URL: the API's message next to the field, and nothing is made.
  await page.getByLabel('Endpoint URL', { exact: true }).fill('ftp://example.com/hook')
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  expect(await errorNextTo(page, 'Endpoint URL')).toMatch(
    /^The URL must be an http:\/\/ or https:\/\/ URL/,
  )
  await checkPage(page, 'webhooks-bad-url')
  // No kind chosen: said next to the kinds.
  await page.getByRole('button', { name: 'Select none' }).click()
  await page.getByLabel('Endpoint URL', { exact: true }).fill(`${receiverUrl}/ok`)
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  await visible(
    page.getByRole('group', { name: 'Event kinds' }).getByText('Choose at least one event kind.'),
  )
  expect(await endpointsOf(token, 'TEST')).toEqual([])
  // In Live mode, an http:// URL is refused: LIVE endpoints must use https.
  await webhooksPage(page, 'live')
  await visible(page.getByRole('heading', { name: 'Add a LIVE endpoint' }))
  await page.getByLabel('Endpoint URL', { exact: true }).fill(`${receiverUrl}/live`)
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  expect(await errorNextTo(page, 'Endpoint URL')).toMatch(/https:\/\/ for a LIVE endpoint/)
  expect(await endpointsOf(token, 'LIVE')).toEqual([])

  // The real one, without program.pool_low: the secret is shown once, with a copy button.
  await webhooksPage(page)
  await visible(page.getByRole('heading', { name: 'Add a TEST endpoint' }))
  await page.getByRole('checkbox', { name: /program\.pool_low/ }).uncheck()
  const secret = await addEndpoint(page, `${receiverUrl}/ok`, 'Our CRM')
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
  await visible(page.getByText('Copy this secret now: it is shown only once.'))
  await page.getByRole('button', { name: 'Copy secret' }).click()
  await visible(page.getByText('Copied to the clipboard.'))
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret)
  await checkPage(page, 'webhooks-secret-once')
  const [made] = await endpointsOf(token, 'TEST')
  expect(made).toMatchObject({ url: `${receiverUrl}/ok`, mode: 'TEST' })
  expect(made?.kinds).not.toContain('program.pool_low')
  expect(made?.kinds).toHaveLength(WEBHOOK_EVENT_KINDS.length - 1)
  expect(JSON.stringify(made)).not.toContain(secret)
  await page.getByRole('button', { name: 'I have stored the secret' }).click()
  // Gone from the page, and never shown again.
  expect(await page.content()).not.toContain(secret)
  const row = page
    .getByRole('table', { name: 'TEST webhook endpoints' })
    .getByRole('row', { name: /Our CRM/ })
  await visible(row)
  expect(await row.innerText()).toMatch(/enabled[\s\S]*Never/)
  // The endpoint is not one of the LIVE endpoints.
  await webhooksPage(page, 'live')
  await visible(page.getByText('No LIVE webhook endpoints yet.'))

  // Its page: "Send test event", then the delivery log shows the attempt.
  await webhooksPage(page)
  await page.getByRole('link', { name: `${receiverUrl}/ok` }).click()
  await visible(page.getByRole('heading', { name: `Endpoint ${receiverUrl}/ok`, level: 1 }))
  await visible(page.getByText('No messages yet.'))
  await page.getByRole('button', { name: 'Send test event' }).click()
  const status = await visible(
    page.getByRole('status').filter({ hasText: 'A test event is on its way' }),
  )
  const messageId = /message (msg_\w+)/.exec(await status.innerText())?.[1] as string
  expect(messageId).toMatch(/^msg_/)

  // The receiver got it, signed with the secret the page showed: standardwebhooks verifies it.
  const [delivery] = await deliveriesTo('/ok')
  expect(delivery?.headers['webhook-id']).toBe(messageId)
  const payload = verify(secret, delivery as Received)
  expect(payload.type).toBe('webhook.test')
  expect(() =>
    verify(`whsec_${Buffer.alloc(24, 7).toString('base64')}`, delivery as Received),
  ).toThrow()

  // The log, read again while the message is pending, shows it delivered: 200 and its latency.
  const message = logRow(page, messageId)
  await visible(message.getByText('delivered', { exact: true }), 20_000)
  expect(await message.innerText()).toMatch(/webhook\.test[\s\S]*HTTP 200, [\d,]+ ms/)
  await message
    .getByRole('button', { name: new RegExp(`^Attempts \\(\\d+\\) of message ${messageId}$`) })
    .click()
  const attempts = page.getByRole('table', {
    name: `Attempts of message ${messageId}, oldest first`,
  })
  await visible(attempts)
  const attempt = attempts.getByRole('row').nth(1)
  expect(await attempt.innerText()).toMatch(
    /^1\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+HTTP 200\s+[\d,]+ ms\s+Test\s+ok, verified later$/,
  )
  // The endpoint's facts follow: its last success.
  await visible(fact(page, 'Last success').getByText(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/), 20_000)
  await checkPage(page, 'webhook-endpoint-delivered', 'console-webhook-log.png')

  // Nothing is pending: the log is not read again, however long the page waits.
  expect(await logReads(page, 3 * WEBHOOKS_POLL_MS)).toEqual([])

  // Rotate: the new secret shown once; the old one keeps signing for 24 hours, beside it.
  await page.getByRole('button', { name: 'Rotate secret' }).click()
  const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' })
  await visible(dialog)
  expect(await dialog.innerText()).toMatch(/keeps signing alongside it for 24 hours/)
  await checkPage(page, 'webhook-rotate-dialog')
  await dialog.getByRole('button', { name: 'Rotate secret' }).click()
  const rotated = await (
    await visible(page.getByLabel('Signing secret', { exact: true }))
  ).inputValue()
  expect(rotated).toMatch(/^whsec_/)
  expect(rotated).not.toBe(secret)
  await visible(
    page.getByText(/The old secret keeps signing alongside the new one for 24 hours, until \d{4}/),
  )
  await checkPage(page, 'webhook-secret-rotated')
  await page.getByRole('button', { name: 'I have stored the secret' }).click()
  await page.getByRole('button', { name: 'Send test event' }).click()
  const [, second] = await deliveriesTo('/ok', 2)
  expect(verify(rotated, second as Received).type).toBe('webhook.test')
  expect(verify(secret, second as Received).type).toBe('webhook.test')

  // Change the kinds; disable (by a person) and enable again.
  await page.getByRole('button', { name: 'Change' }).click()
  await page.getByRole('checkbox', { name: /grant\.created/ }).uncheck()
  await page.getByRole('button', { name: 'Save endpoint' }).click()
  await visible(page.getByRole('status').filter({ hasText: 'The endpoint is saved.' }))
  expect((await endpointsOf(token, 'TEST'))[0]?.kinds).toHaveLength(WEBHOOK_EVENT_KINDS.length - 2)
  await page.getByRole('button', { name: 'Disable' }).click()
  await visible(page.getByText(/^Disabled on \d{4}-\d\d-\d\d \d\d:\d\d: a person disabled it$/))
  expect(await page.getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(true)
  await page.getByRole('button', { name: 'Enable' }).click()
  await visible(page.getByRole('status').filter({ hasText: 'The endpoint is enabled' }))

  // The log a page at a time: 20 more test events (22 messages), newest first, then "Load more".
  const endpointId = made?.endpointId as string
  for (let i = 0; i < 20; i++) {
    expect((await api(token, 'POST', `${endpointsPath()}/${endpointId}/test`)).status).toBe(202)
  }
  await deliveriesTo('/ok', 22)
  await page.reload()
  const log = page.getByRole('table', { name: 'Messages to this endpoint, newest first' })
  await visible(log)
  const shownIds = async () =>
    (await log.locator('tbody > tr > th').allInnerTexts()).map((t) => /msg_\w+/.exec(t)?.[0])
  expect(await shownIds()).toHaveLength(20)
  expect(await logRow(page, messageId).count()).toBe(0)
  await page.getByRole('button', { name: 'Load more' }).click()
  await visible(logRow(page, messageId))
  const all = await shownIds()
  expect(all).toHaveLength(22)
  expect(all.at(-1)).toBe(messageId)
  expect([...all].sort().reverse()).toEqual(all)
  expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0)
  expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([])
})

it('shows a receiver answering 500: the failed attempt, the next attempt’s time; replays and deletes', async () => {
  const { page, token } = await signedIn('admin')
  const problems = watchConsole(page)
  const notFound = answeredWith(page, 404)
  failing.add('/down')
  await page.clock.install()
  await webhooksPage(page)
  await visible(page.getByRole('heading', { name: 'Add a TEST endpoint' }))
  const secret = await addEndpoint(page, `${receiverUrl}/down`, 'A receiver that is down')
  await page.getByRole('button', { name: 'I have stored the secret' }).click()
  await page.getByRole('link', { name: `${receiverUrl}/down` }).click()
  await page.getByRole('button', { name: 'Send test event' }).click()
  const status = await visible(
    page.getByRole('status').filter({ hasText: 'A test event is on its way' }),
  )
  const messageId = /message (msg_\w+)/.exec(await status.innerText())?.[1] as string
  const [delivery] = await deliveriesTo('/down')
  expect(verify(secret, delivery as Received).type).toBe('webhook.test')

  // Failed, still pending, with the time of its next attempt; the endpoint failing since then.
  const message = logRow(page, messageId)
  await visible(message.getByText(/HTTP 500, [\d,]+ ms/), 20_000)
  const text = await message.innerText()
  expect(text).toMatch(/pending/)
  expect(text).toMatch(/HTTP 500, [\d,]+ ms\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/)
  // The schedule's first wait is 5 s (jittered by 20%) after the failed attempt, or later.
  const next = await message.locator('td').nth(3).locator('time').getAttribute('datetime')
  expect(Date.parse(next as string)).toBeGreaterThan((delivery as Received).at + 3_000)
  await visible(fact(page, 'Failing since').locator('time'), 20_000)
  await message
    .getByRole('button', { name: new RegExp(`^Attempts \\(\\d+\\) of message ${messageId}$`) })
    .click()
  const attempts = page.getByRole('table', {
    name: `Attempts of message ${messageId}, oldest first`,
  })
  expect(await attempts.getByRole('row').nth(1).innerText()).toMatch(
    /^1\s+\S+ \S+\s+HTTP 500\s+[\d,]+ ms\s+Test\s+receiver is down for maintenance$/,
  )
  await checkPage(page, 'webhook-endpoint-failing')

  // While it is pending, the log is read again every few seconds (the page's, on its clock).
  const readAgain = page.waitForRequest((r) => new URL(r.url()).pathname.endsWith('/messages'))
  await page.clock.runFor(WEBHOOKS_POLL_MS)
  await readAgain

  // Replay one message: one more attempt, started by the replay, with the same webhook-id.
  failing.delete('/down')
  const before = received.filter((r) => r.path === '/down').length
  await message.getByRole('button', { name: `Replay message ${messageId}` }).click()
  const replayDialog = page.getByRole('dialog', { name: `Replay message ${messageId}?` })
  await replayDialog.getByRole('button', { name: 'Replay message' }).click()
  await visible(page.getByRole('status').filter({ hasText: `Message ${messageId} is sent again` }))
  const after = await deliveriesTo('/down', before + 1)
  expect(after.at(-1)?.headers['webhook-id']).toBe(messageId)
  const replayed = await visible(attempts.getByRole('row').filter({ hasText: 'Replay' }), 20_000)
  expect(await replayed.innerText()).toMatch(/HTTP 200\s+[\d,]+ ms\s+Replay\s+ok, verified later$/)
  await visible(message.getByText('delivered', { exact: true }))

  // Every message since a time: a time to come is refused next to the field.
  await page.getByLabel('Replay every message since').fill('2099-01-01T00:00')
  await page.getByRole('button', { name: 'Replay every message since then' }).click()
  expect(await errorNextTo(page, 'Replay every message since')).toMatch(/in the past/)
  await page.getByLabel('Replay every message since').fill('2020-01-01T00:00')
  await page.getByRole('button', { name: 'Replay every message since then' }).click()
  await visible(
    page.getByRole('status').filter({ hasText: /Every message since .* is being sent again/ }),
  )
  await deliveriesTo('/down', after.length + 1)

  // Delete: confirmed first; then it is gone.
  const downId = (await endpointsOf(token, 'TEST')).find((e) => e.url === `${receiverUrl}/down`)
    ?.endpointId as string
  await page.getByRole('button', { name: 'Delete' }).click()
  const dialog = page.getByRole('dialog', { name: `Delete the endpoint ${receiverUrl}/down?` })
  await visible(dialog)
  await checkPage(page, 'webhook-delete-dialog')
  await dialog.getByRole('button', { name: 'Delete endpoint' }).click()
  await visible(page.getByRole('heading', { name: 'Endpoint deleted' }))
  expect((await endpointsOf(token, 'TEST')).map((e) => e.url)).not.toContain(`${receiverUrl}/down`)

  // A receiver answering 410 Gone: the endpoint is disabled at once, and says why.
  gone.add('/gone')
  await webhooksPage(page)
  await visible(page.getByRole('heading', { name: 'Add a TEST endpoint' }))
  await addEndpoint(page, `${receiverUrl}/gone`, 'A receiver that is gone')
  await page.getByRole('button', { name: 'I have stored the secret' }).click()
  await page.getByRole('link', { name: `${receiverUrl}/gone` }).click()
  await page.getByRole('button', { name: 'Send test event' }).click()
  await deliveriesTo('/gone')
  await visible(
    fact(page, 'State').getByText(/^Disabled on \S+ \S+: the receiver answered 410 Gone$/),
    20_000,
  )
  await webhooksPage(page)
  await visible(
    page
      .getByRole('table', { name: 'TEST webhook endpoints' })
      .getByRole('row', { name: /A receiver that is gone/ })
      .getByText('disabled', { exact: true }),
  )
  // A read on its way as the endpoint went (of the endpoint or of its messages) answers 404, or
  // none was: both right; nothing else 404.
  expect(
    notFound.filter(
      (r) =>
        r !== `GET ${endpointsPath()}/${downId}` &&
        !r.startsWith(`GET ${endpointsPath()}/${downId}/`),
    ),
  ).toEqual([])
  expect(problems.filter((p) => !/status of 400/.test(p))).toEqual(notFound.map(() => NOT_FOUND))
})

it('shows a viewer the endpoints and their delivery log without a button to change them', async () => {
  const { page, token } = await signedIn('viewer')
  const problems = watchConsole(page)
  await webhooksPage(page)
  const table = page.getByRole('table', { name: 'TEST webhook endpoints' })
  await visible(table.getByRole('link', { name: `${receiverUrl}/ok` }))
  expect(await page.getByRole('heading', { name: 'Add a TEST endpoint' }).count()).toBe(0)
  await visible(page.getByText('Owners and admins add, change and test endpoints.'))
  await checkPage(page, 'webhooks-viewer')
  await table.getByRole('link', { name: `${receiverUrl}/ok` }).click()
  await visible(page.getByRole('heading', { name: `Endpoint ${receiverUrl}/ok`, level: 1 }))
  await visible(page.getByRole('table', { name: 'Messages to this endpoint, newest first' }))
  const main = page.getByRole('main')
  for (const name of ADMIN_BUTTONS) {
    expect({ name: String(name), count: await main.getByRole('button', { name }).count() }).toEqual(
      { name: String(name), count: 0 },
    )
  }
  const buttons = await main.getByRole('button').allInnerTexts()
  expect(buttons.length).toBeGreaterThan(0)
  // Only the buttons that read: a message's attempts, the next page of the log.
  expect(buttons.filter((b) => !/^Attempts \(\d+\)$/.test(b))).toEqual(['Load more'])
  await main.getByRole('button').first().click()
  await visible(main.getByRole('table', { name: /^Attempts of message msg_/ }))
  await checkPage(page, 'webhook-endpoint-viewer')
  // The API refuses a viewer anyway.
  const [endpoint] = await endpointsOf(token, 'TEST')
  const refused = await api(token, 'POST', `${endpointsPath()}/${endpoint?.endpointId}/test`)
  expect(refused.status).toBe(403)
  expect(problems).toEqual([])
})

it('sets a program’s pool-low threshold on its settings: a bad value told next to the field', async () => {
  const { page, token } = await signedIn('admin')
  const problems = watchConsole(page)
  const programPath = `/manage/issuers/${server.seed.issuerId}/programs/${server.seed.programs.TEST}`
  await page.goto(`/app/${server.seed.issuerId}/test/programs/${server.seed.programs.TEST}`)
  const settings = page.getByRole('region', { name: 'Offer settings' })
  await visible(settings.getByText('Pool-low event'))
  await page.getByRole('button', { name: 'Change offer settings' }).click()
  for (const bad of ['0', '2.5', 'ten']) {
    await page.getByLabel('Pool-low threshold (shares left)').fill(bad)
    await page.getByRole('button', { name: 'Save offer settings' }).click()
    expect(await errorNextTo(page, 'Pool-low threshold (shares left)')).toMatch(/1 or more/)
  }
  expect(
    ((await api(token, 'GET', programPath)).body as { poolLowThreshold: unknown }).poolLowThreshold,
  ).toBeNull()
  await checkPage(page, 'webhooks-pool-low-error')
  await page.getByLabel('Pool-low threshold (shares left)').fill('25')
  await page.getByRole('button', { name: 'Save offer settings' }).click()
  await visible(page.getByRole('status').filter({ hasText: 'Offer settings saved.' }))
  await visible(settings.getByText('At 25 shares left'))
  expect(
    ((await api(token, 'GET', programPath)).body as { poolLowThreshold: unknown }).poolLowThreshold,
  ).toBe(25)
  // Emptied: no pool-low event any more.
  await page.getByRole('button', { name: 'Change offer settings' }).click()
  expect(await page.getByLabel('Pool-low threshold (shares left)').inputValue()).toBe('25')
  await page.getByLabel('Pool-low threshold (shares left)').fill('')
  await page.getByRole('button', { name: 'Save offer settings' }).click()
  await visible(
    settings
      .locator('.facts > div')
      .filter({ hasText: 'Pool-low event' })
      .getByText('None', { exact: true }),
  )
  expect(
    ((await api(token, 'GET', programPath)).body as { poolLowThreshold: unknown }).poolLowThreshold,
  ).toBeNull()
  expect(problems).toEqual([])
})
