import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import axe from 'axe-core'
import {
  type Browser,
  type BrowserContext,
  chromium,
  type Locator,
  type Page,
} from 'playwright-core'
import type { Seed } from '../../local/seed'
import { findChromium, noBrowserLine } from '../support/chromium'
import { CHROMIUM_ARGS } from '../support/chromium-args'
import { cognitoOk } from '../support/cognito-call'
import { invitedMember } from '../support/local-operator'
import { launchNpmStart, type Started, waitFor } from '../support/npm-start'
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
 * screenshot of each page.
 */
const VITE = resolve(ROOT, 'node_modules/vite/bin/vite.js')
const run = promisify(execFile)
export const OUTPUT = resolve(ROOT, 'test-output/console')
export const DOCS = resolve(ROOT, 'docs')

/**
 * Every browser this test file launched: closed after its tests whatever happened, like the
 * servers (test/support/npm-start.ts); one that comes up after that is closed at once.
 */
const browsers = new Set<Browser>()
let closed = false
if (typeof afterAll === 'function') {
  afterAll(async () => {
    closed = true
    await Promise.all([...browsers].map((browser) => browser.close().catch(() => undefined)))
  })
}

/**
 * Chromium (test/support/chromium.ts finds it: CHROMIUM_PATH, the system's, Playwright's). None is
 * an error at once, in one line that says what to install: browser tests are never skipped.
 */
export const launchBrowser = async (): Promise<Browser> => {
  const found = findChromium()
  if (found.path === undefined) throw new Error(noBrowserLine(found.why))
  const browser = await chromium.launch({
    executablePath: found.path,
    args: CHROMIUM_ARGS,
    timeout: 60_000,
  })
  browsers.add(browser)
  browser.once('disconnected', () => browsers.delete(browser))
  if (closed) await browser.close()
  return browser
}

export type LocalServer = Started & {
  dir: string
  baseUrl: string
  seed: Seed
  stop: () => Promise<void>
}

/**
 * The console built from its sources now, into a folder of its own (under a second): a stale
 * console/dist never hides a change, and two test files never build into the same folder.
 */
export const buildConsole = async (outDir: string) => {
  await run(
    process.execPath,
    [VITE, 'build', '--logLevel', 'warn', '--outDir', outDir, '--emptyOutDir'],
    {
      cwd: resolve(ROOT, 'console'),
    },
  )
  return outDir
}

/** `npm start -- --in-memory` in a folder of its own, on a free port, serving that build. */
export const startLocalServer = async (): Promise<LocalServer> => {
  const dir = mkdtempSync(join(tmpdir(), 'vs-console-'))
  const consoleDir = await buildConsole(join(dir, 'console-dist'))
  const started = launchNpmStart(dir, ['--in-memory'], { VS_CONSOLE_DIR: consoleDir })
  await waitFor(
    () => started.output().includes('Ctrl-C stops'),
    'the ready banner',
    started,
    120_000,
  )
  const running = JSON.parse(readFileSync(join(dir, 'dynamodb-endpoint.json'), 'utf8')) as {
    baseUrl: string
  }
  const seed = JSON.parse(readFileSync(join(dir, 'seed.json'), 'utf8')) as Seed
  // Stopped after the file's tests in any case (test/support/npm-start.ts); `stop` is for sooner.
  return { ...started, dir, baseUrl: running.baseUrl, seed, stop: () => started.stop() }
}

/** How long a console test file's set-up may take: a console build, `npm start` and Chromium. */
export const SET_UP_MS = 180_000

/**
 * What each console test file needs before its tests: its own `npm start` and Chromium, started
 * side by side. Both are closed after the file's tests whatever happened (the hooks above and in
 * test/support/npm-start.ts), so the files register no afterAll of their own.
 */
export const startServerAndBrowser = async () => {
  const [server, browser] = await Promise.all([startLocalServer(), launchBrowser()])
  return { server, browser }
}

// The admin CLI and the mail sink, from test/support/local-operator.ts (no browser there).
export { adminCli, mailTo, temporaryPasswordIn } from '../support/local-operator'

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

/** The password the console tests give the people they sign in. */
export const MEMBER_PASSWORD = 'a long passphrase for the console'

/** An access token from npm start's Cognito emulator for a signed-up person, as the console gets one. */
export const memberAccessToken = async (
  server: LocalServer,
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
 * A person invited by the operator with `role` into the seeded issuer, who accepts in the console
 * (temporary password from the mail sink, a password of their own) and lands on Programs: their
 * page, its context, their address and an API token. `origin`: the console's origin when not the
 * server's own (the upload test serves it at `localhost`).
 */
export const signedInMember = async (
  server: LocalServer,
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
