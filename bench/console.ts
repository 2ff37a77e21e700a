/**
 * The console's figures for `npm run bench` (reported, never asserted):
 *
 * - `firstPageJsGzipBytes`: the JavaScript the first page loads (the scripts and module preloads
 *   that console/dist/index.html names), each gzipped at level 9, summed. Target: at most 50 KB.
 * - `holdingsPageJsGzipBytes`: the same for the recipient's holdings page (console/dist/
 *   holdings.html, served at /holdings). Target: at most 30 KB.
 * - `programsFirstRenderMs`: a reload of the programs page in headless Chromium against a running
 *   `npm start`, from navigation start to the first program in the table: the page, its script,
 *   config.json, the token refresh at Cognito, `GET /manage/me` and the programs list. Median of
 *   several reloads after a warm-up.
 *
 * `baseUrl` is the running `npm start`; `localDir` its `.local` folder (VS_LOCAL_DIR, or the
 * checkout's `.local`), where the admin CLI finds its tables and emulator to add a viewer to the
 * seeded issuer, who then signs in. Run alone, `node --import tsx bench/console.ts` starts an
 * `npm start -- --in-memory` of its own and prints the figures as JSON.
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { CHROMIUM_ARGS } from '../test/support/chromium-args'
import { acceptInvitation } from '../test/support/cognito-call'
import { invitedMember } from '../test/support/local-operator'

// What the page's init script reads in the browser: the root tsconfig has Node's types, not the DOM's.
declare const window: object
declare const document: { querySelector(selector: string): unknown }
declare class MutationObserver {
  constructor(callback: (records: unknown, observer: MutationObserver) => void)
  observe(target: unknown, options: { childList: boolean; subtree: boolean }): void
  disconnect(): void
}

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DIST = join(ROOT, 'console/dist')
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs')
const RELOADS = 9

/** The JS files a page of the build loads: its module scripts and module preloads. */
export const firstPageScripts = (dist = DIST, page = 'index.html') => {
  const html = readFileSync(join(dist, page), 'utf8')
  const found = [
    ...html.matchAll(/<script[^>]*\bsrc="([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+\.js)"/g),
  ].map((m) => (m[1] as string).replace(/^\/app\//, ''))
  return [...new Set(found)].map((file) => join(dist, file))
}

export const firstPageJsGzipBytes = (dist = DIST, page = 'index.html') =>
  firstPageScripts(dist, page).reduce(
    (sum, file) => sum + gzipSync(readFileSync(file), { level: 9 }).length,
    0,
  )

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

export type ConsoleFigures = {
  firstPageJsGzipBytes: number
  holdingsPageJsGzipBytes: number
  programsFirstRenderMs: number
}

export async function measureConsole(opts: {
  baseUrl: string
  localDir?: string
}): Promise<ConsoleFigures> {
  const { chromium } = await import('playwright-core')
  const baseUrl = opts.baseUrl.replace(/\/+$/, '')
  const localDir = opts.localDir ?? process.env.VS_LOCAL_DIR ?? join(ROOT, '.local')
  const seed = JSON.parse(readFileSync(join(localDir, 'seed.json'), 'utf8')) as { issuerId: string }

  // A viewer of the seeded issuer, invited with the admin CLI; the first sign-in (the temporary
  // password, then a password of their own) straight against Cognito's API.
  const server = { baseUrl, dir: localDir, seed }
  const { email, temporary } = await invitedMember(server, 'viewer', 'bench-console')
  const password = `bench console ${randomUUID()}`
  await acceptInvitation(server, { email, temporary }, password)

  const browser = await chromium.launch({
    executablePath: process.env.VS_CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  })
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    // When the first program link appears, measured from navigation start (before any script of
    // the page runs; the CSP does not govern an init script).
    await page.addInitScript(() => {
      const w = window as unknown as { __programsRendered?: number }
      new MutationObserver((_, observer) => {
        if (document.querySelector('a[href*="/programs/prg_"]')) {
          w.__programsRendered = performance.now()
          observer.disconnect()
        }
      }).observe(document, { childList: true, subtree: true })
    })
    await page.goto(`${baseUrl}/app/`)
    await page.getByLabel('E-mail address').fill(email)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    const rendered = async () => {
      await page.waitForFunction(
        () => (window as unknown as { __programsRendered?: number }).__programsRendered,
        undefined,
        { timeout: 30_000 },
      )
      return page.evaluate(
        () => (window as unknown as { __programsRendered: number }).__programsRendered,
      )
    }
    await rendered()
    const times: number[] = []
    for (let i = 0; i < RELOADS + 1; i++) {
      await page.reload()
      const ms = await rendered()
      if (i > 0) times.push(ms) // the first reload warms the caches
    }
    return {
      firstPageJsGzipBytes: firstPageJsGzipBytes(),
      holdingsPageJsGzipBytes: firstPageJsGzipBytes(DIST, 'holdings.html'),
      programsFirstRenderMs: Number(median(times).toFixed(1)),
    }
  } finally {
    await browser.close()
  }
}

// Run alone: an npm start of its own, in memory.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const localDir = mkdtempSync(join(tmpdir(), 'vs-bench-console-'))
  const child = spawn(process.execPath, [TSX, 'bin/local-server.ts', '--in-memory'], {
    cwd: ROOT,
    env: { ...process.env, VS_LOCAL_DIR: localDir, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (d) => {
    output += d
  })
  child.stderr.on('data', (d) => {
    output += d
  })
  const deadline = Date.now() + 120_000
  while (!output.includes('Ctrl-C stops')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`npm start did not come up:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  const endpointFile = join(localDir, 'dynamodb-endpoint.json')
  if (!existsSync(endpointFile)) throw new Error(`no ${endpointFile}`)
  const { baseUrl } = JSON.parse(readFileSync(endpointFile, 'utf8')) as { baseUrl: string }
  try {
    console.log(JSON.stringify(await measureConsole({ baseUrl, localDir }), null, 2))
  } finally {
    child.kill('SIGINT')
    await new Promise((r) => child.once('exit', r))
  }
}
