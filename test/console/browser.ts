import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import axe from 'axe-core'
import {
  type Browser,
  type BrowserContext,
  chromium,
  type Download,
  type Locator,
  type Page,
  type Request,
} from 'playwright-core'
import { createDocumentClient, createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import type { LOCAL_TABLES } from '../../local/local-env'
import { type Seed, seed } from '../../local/seed'
import {
  BROWSER_RUN_ENV,
  buildConsole,
  type SharedServerRecord,
  startNpmStart,
} from '../support/browser-run'
import { findChromium, noBrowserLine } from '../support/chromium'
import { CHROMIUM_ARGS } from '../support/chromium-args'
import { cognitoOk } from '../support/cognito-call'
import { invitedMember } from '../support/local-operator'
import type { Started } from '../support/npm-start'
import { ROOT } from '../support/root'

// What page.evaluate callbacks read in the browser: the root tsconfig has Node's types, not the DOM's.
declare const window: object & {
  axe: { run(context: unknown, options: unknown): Promise<unknown> }
}
declare const document: { activeElement: unknown }

/**
 * What the console's browser tests share: a real `npm start` (its tables, Cognito emulator, mail
 * sink and the built console at /app/), Chromium driven by playwright-core (the system's, or the
 * one `npm test` installed: test/support/chromium.ts), axe-core injected into each page, and a
 * screenshot of each page. Global set-up builds the console, launches Chromium and starts one
 * `npm start` for the whole run (test/support/browser-run.ts); a file run without them (another
 * jest config) builds and starts its own.
 */
export const OUTPUT = resolve(ROOT, 'test-output/console')
export const DOCS = resolve(ROOT, 'docs')

/**
 * Every browser this test file launched or connected to: closed after its tests whatever
 * happened, like the servers (test/support/npm-start.ts); one that comes up after that is closed
 * at once. Closing a connected browser closes this file's contexts only, never the run's Chromium.
 */
const browsers = new Set<Browser>()
/** Whatever else the file's set-up made that must go with it (its own console build). */
const cleanups: (() => Promise<void> | void)[] = []
let closed = false
if (typeof afterAll === 'function') {
  afterAll(async () => {
    closed = true
    await Promise.all([...browsers].map((browser) => browser.close().catch(() => undefined)))
    await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()))
  })
}

const keep = async (browser: Browser) => {
  browsers.add(browser)
  browser.once('disconnected', () => browsers.delete(browser))
  if (closed) await browser.close()
  return browser
}

/**
 * Chromium (test/support/chromium.ts finds it: CHROMIUM_PATH, the system's, Playwright's). None is
 * an error at once, in one line that says what to install: browser tests are never skipped.
 */
export const launchBrowser = async (): Promise<Browser> => {
  const found = findChromium()
  if (found.path === undefined) throw new Error(noBrowserLine(found.why))
  return keep(
    await chromium.launch({ executablePath: found.path, args: CHROMIUM_ARGS, timeout: 60_000 }),
  )
}

/** The run's Chromium when global set-up launched one (its line when none was found), or a new one. */
export const runBrowser = async (): Promise<Browser> => {
  const missing = process.env[BROWSER_RUN_ENV.noBrowser]
  if (missing) throw new Error(missing)
  const ws = process.env[BROWSER_RUN_ENV.browserWs]
  if (ws === undefined) return launchBrowser()
  return keep(await chromium.connect(ws, { timeout: 60_000 }))
}

/** A server the console tests drive: its folder, address and the issuer the file works in. */
export type ConsoleServer = {
  dir: string
  baseUrl: string
  /** The file's own issuer (the shared server's seeded one is nobody's), as seed.json has it. */
  seed: Seed
  /** DynamoDB Local's endpoint and the server's table names (dynamodb-endpoint.json). */
  endpoint: string
  tables: typeof LOCAL_TABLES
}

/** A server of the file's own (npm-start-session.ts shapes its servers the same). */
export type LocalServer = Started & {
  dir: string
  baseUrl: string
  seed: Seed
  stop: () => Promise<void>
}

const recordsOf = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'dynamodb-endpoint.json'), 'utf8')) as {
    baseUrl: string
    endpoint: string
    tables: typeof LOCAL_TABLES
  }

/** The run's console build, or one of this file's own (removed after its tests). */
const consoleBuild = async () => {
  const shared = process.env[BROWSER_RUN_ENV.consoleDir]
  if (shared !== undefined) return shared
  const dir = mkdtempSync(join(tmpdir(), 'vs-console-dist-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return buildConsole(dir)
}

/**
 * `npm start -- --in-memory` of this file's own, on a free port, serving the run's console build:
 * for the files that move npm start's clock (POST /_local/clock moves it for every issuer on the
 * server, forward only, so a file that moves it must have the server to itself).
 */
export const startLocalServer = async (): Promise<LocalServer & ConsoleServer> => {
  const dir = mkdtempSync(join(tmpdir(), 'vs-console-'))
  const { started } = await startNpmStart(dir, await consoleBuild())
  const running = recordsOf(dir)
  const seed = JSON.parse(readFileSync(join(dir, 'seed.json'), 'utf8')) as Seed
  // Stopped after the file's tests in any case (test/support/npm-start.ts); `stop` is for sooner.
  return {
    ...started,
    dir,
    baseUrl: running.baseUrl,
    endpoint: running.endpoint,
    tables: running.tables,
    seed,
    stop: () => started.stop(),
  }
}

/**
 * The run's shared `npm start`, with an issuer of this file's own made there as npm start seeds
 * one (local/seed.ts: a TEST and a LIVE program, a key for each), so files running side by side
 * never see each other's programs, batches, endpoints or inbox. Without a shared server (another
 * jest config), a server of the file's own.
 */
export const sharedServer = async (): Promise<ConsoleServer> => {
  const record = process.env[BROWSER_RUN_ENV.server]
  if (record === undefined) return startLocalServer()
  const { dir, baseUrl } = JSON.parse(record) as SharedServerRecord
  const running = recordsOf(dir)
  const client = createDocumentClient(
    createDynamoDbClient({ endpoint: running.endpoint, region: 'local' }),
  )
  try {
    const issuer = await seed(client, running.tables, baseUrl)
    return { dir, baseUrl, endpoint: running.endpoint, tables: running.tables, seed: issuer }
  } finally {
    client.destroy()
  }
}

/** How long a console test file's set-up may take: a console build, `npm start` and Chromium. */
export const SET_UP_MS = 180_000

/**
 * What each console test file needs before its tests: the shared server with an issuer of its own,
 * and the run's Chromium. The browser is closed after the file's tests whatever happened (the hook
 * above), so the files register no afterAll of their own.
 */
export const startServerAndBrowser = async () => {
  const [server, browser] = await Promise.all([sharedServer(), runBrowser()])
  return { server, browser }
}

/** The same with a server of the file's own: for the files that move npm start's clock. */
export const startOwnServerAndBrowser = async () => {
  const [server, browser] = await Promise.all([startLocalServer(), runBrowser()])
  return { server, browser }
}

// The admin CLI (in this process) and the mail sink (test/support/local-operator.ts).
export { adminCli, invitedMember, mailTo, temporaryPasswordIn } from '../support/local-operator'

/** Presses Tab until `locator` has the focus: proof that the keyboard reaches it. */
export const tabTo = async (page: Page, locator: Locator, max = 80) => {
  for (let i = 0; i < max; i++) {
    if (await locator.evaluate((el) => el === document.activeElement).catch(() => false)) return
    await page.keyboard.press('Tab')
  }
  throw new Error(`Tab never reached ${locator}`)
}

/** Waits for a locator to be visible (a screenshot of the page when it never is). */
export const visible = async (locator: Locator, timeout = 30_000) => {
  try {
    await locator.first().waitFor({ state: 'visible', timeout })
  } catch (error) {
    await screenshot(locator.page(), 'failure')
    throw error
  }
  return locator.first()
}

/**
 * The requests whose path `matches` that the page sends while its clock (page.clock.install()d)
 * runs `ms` on: every timer due in that span fires at once, so "not read again" holds for that long
 * of the page's time, not for however long a loaded machine happened to take.
 */
export const readsWhileClockRuns = async (
  page: Page,
  matches: (pathname: string) => boolean,
  ms: number,
) => {
  const reads: string[] = []
  const listen = (request: Request) => {
    if (matches(new URL(request.url()).pathname)) reads.push(request.url())
  }
  page.on('request', listen)
  try {
    await page.clock.runFor(ms)
    // A task after the timers' own: what they started (a token in hand, then fetch) has been sent.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)))
  } finally {
    page.off('request', listen)
  }
  return reads
}

/** A fresh context (its own storage, like another person's browser) with the clipboard allowed. */
export const newContext = async (browser: Browser, baseUrl: string): Promise<BrowserContext> => {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
  })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl })
  return context
}

/**
 * What a download holds: saved first (the run's Chromium is another process, reached over a
 * socket, so Playwright copies the file here rather than handing out its own path).
 */
export const downloadedText = async (download: Download) => {
  const dir = mkdtempSync(join(tmpdir(), 'vs-download-'))
  try {
    const path = join(dir, download.suggestedFilename())
    await download.saveAs(path)
    return readFileSync(path, 'utf8')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

type Violation = { id: string; impact: string | null; help: string; nodes: string[] }

/** axe-core in the page: the serious and critical violations (none is expected). */
export const seriousViolations = async (page: Page): Promise<Violation[]> => {
  if (!(await page.evaluate(() => 'axe' in window))) {
    // Evaluated through the DevTools protocol, which the page's CSP does not govern (an injected
    // <script> would be refused by script-src 'self', as it should be).
    await page.evaluate(axe.source)
  }
  return page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is the injected global.
    const result = await (window as any).axe.run(document, {
      resultTypes: ['violations'],
    })
    return (
      result.violations as {
        id: string
        impact: string | null
        help: string
        nodes: { target: string[] }[]
      }[]
    )
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map((n) => n.target.join(' ')),
      }))
  })
}

/**
 * Saves a screenshot of the page under test-output/console/ (git-ignored). With `docsName`, also
 * the README's checked-in image docs/<docsName>, when it is missing or VS_DOCS_IMAGES=1 asks for
 * new ones (a key and the dates differ on every run, so a plain test run leaves them alone).
 */
export const screenshot = async (page: Page, name: string, docsName?: string) => {
  mkdirSync(OUTPUT, { recursive: true })
  await page.screenshot({ path: join(OUTPUT, `${name}.png`), fullPage: true })
  if (docsName && (process.env.VS_DOCS_IMAGES === '1' || !existsSync(join(DOCS, docsName)))) {
    mkdirSync(DOCS, { recursive: true })
    await page.screenshot({ path: join(DOCS, docsName), fullPage: false })
  }
}

/** Every page the tests visit: a screenshot, and no serious or critical axe violation. */
export const checkPage = async (page: Page, name: string, docsName?: string) => {
  await screenshot(page, name, docsName)
  expect({ page: name, violations: await seriousViolations(page) }).toEqual({
    page: name,
    violations: [],
  })
}

/** Errors the page reported (a CSP refusal, an exception): none is expected. */
export const watchConsole = (page: Page) => {
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`))
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`)
  })
  return problems
}

/** Each response with `status` the page gets, as "METHOD /path". */
export const answeredWith = (page: Page, status: number) => {
  const seen: string[] = []
  page.on('response', (response) => {
    if (response.status() === status)
      seen.push(`${response.request().method()} ${new URL(response.url()).pathname}`)
  })
  return seen
}

/** What Chromium logs on the console for each 404 (watchConsole). */
export const NOT_FOUND =
  'console: Failed to load resource: the server responded with a status of 404 (Not Found)'

/** The message asking for the field labelled `label` (its aria-describedby's error). */
export const errorNextTo = async (page: Page, label: string) => {
  const field = page.getByLabel(label, { exact: true })
  await visible(page.locator('.field-error'))
  expect(await field.getAttribute('aria-invalid')).toBe('true')
  const describedBy = (await field.getAttribute('aria-describedby')) ?? ''
  return page.locator(`[id="${describedBy.split(' ').pop()}"]`).innerText()
}

/** The password the console tests give the people they sign in. */
export const MEMBER_PASSWORD = 'a long passphrase for the console'

/** An access token from npm start's Cognito emulator for a signed-up person, as the console gets one. */
export const memberAccessToken = async (
  server: ConsoleServer,
  email: string,
  password = MEMBER_PASSWORD,
) => {
  const data = await cognitoOk(server, 'InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    AuthParameters: { USERNAME: email, PASSWORD: password },
  })
  if (!data.AuthenticationResult) throw new Error(`no token for ${email}: ${JSON.stringify(data)}`)
  return data.AuthenticationResult.AccessToken
}

/**
 * A person invited by the operator with `role` into the file's issuer, who accepts in the console
 * (temporary password from the mail sink, a password of their own) and lands on Programs: their
 * page, its context, their address and an API token. `origin`: the console's origin when not the
 * server's own (the upload test serves it at `localhost`).
 */
export const signedInMember = async (
  server: ConsoleServer,
  browser: Browser,
  role: string,
  { origin = server.baseUrl, who = role }: { origin?: string; who?: string } = {},
) => {
  const { email, temporary } = await invitedMember(server, role, who)
  const context = await newContext(browser, origin)
  const page = await context.newPage()
  await page.goto('/app/accept')
  await page.getByLabel('E-mail address').fill(email)
  await page.getByLabel('Temporary password').fill(temporary)
  await page.getByLabel('New password', { exact: true }).fill(MEMBER_PASSWORD)
  await page.getByLabel('Repeat the new password').fill(MEMBER_PASSWORD)
  await page.getByRole('button', { name: 'Set password and sign in' }).click()
  await visible(page.getByRole('heading', { name: 'Programs' }))
  return { page, context, email, token: await memberAccessToken(server, email) }
}
