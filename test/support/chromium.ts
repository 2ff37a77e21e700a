import { spawnSync } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { chromium } from 'playwright-core'

/**
 * The browser of the console's tests: found once, never skipped. In this order: CHROMIUM_PATH (or
 * the older VS_CHROMIUM) when set, which must then be there; Debian's /usr/bin/chromium and the
 * usual Chromium and Chrome installs; the Chromium Playwright's own installer puts in its cache.
 * `npm test` runs ensureChromium first (package.json `pretest`), which installs one where it can.
 */
const KNOWN_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
]

export const INSTALL_HINT =
  'install Chromium (Debian/Ubuntu: sudo apt-get install chromium; any system with downloads: npx playwright-core install chromium) or set CHROMIUM_PATH to a Chromium or Chrome executable'

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

export type Found = { path: string; source: string } | { path?: undefined; why: string }

export const findChromium = (env: NodeJS.ProcessEnv = process.env): Found => {
  const chosen = env.CHROMIUM_PATH ?? env.VS_CHROMIUM
  if (chosen !== undefined && chosen !== '') {
    return executable(chosen)
      ? { path: chosen, source: 'CHROMIUM_PATH' }
      : { why: `CHROMIUM_PATH is ${chosen}, which is no executable file` }
  }
  for (const path of KNOWN_PATHS) if (executable(path)) return { path, source: 'system' }
  const playwrights = chromium.executablePath()
  if (executable(playwrights)) return { path: playwrights, source: 'playwright' }
  return { why: 'no Chromium or Chrome found' }
}

/** The one line a run without a browser stops with. */
export const noBrowserLine = (why: string) =>
  `error: the console's browser tests need Chromium: ${why}; ${INSTALL_HINT}.`

const run = (command: string, args: string[], env: NodeJS.ProcessEnv = process.env) =>
  spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', env })

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0

/**
 * Finds a browser, or installs one: Debian's package when running as root where apt-get is;
 * otherwise Playwright's installer (a download, unless PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD is set).
 * Returns the browser, or the one line to stop with.
 */
export const ensureChromium = (
  log: (line: string) => void = console.error,
): { path: string } | { error: string } => {
  const found = findChromium()
  if (found.path !== undefined) return { path: found.path }
  // A CHROMIUM_PATH that is wrong is a mistake to report, not a reason to install another.
  if (process.env.CHROMIUM_PATH || process.env.VS_CHROMIUM)
    return { error: noBrowserLine(found.why) }
  const tried: string[] = []
  if (isRoot() && run('apt-get', ['--version']).status === 0) {
    log("No Chromium found: installing Debian's (apt-get install chromium)...")
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
    const update = run('apt-get', ['update', '-qq'], env)
    const install =
      update.status === 0 ? run('apt-get', ['install', '-y', '-qq', 'chromium'], env) : update
    if (install.status !== 0) {
      tried.push(`apt-get install chromium failed (${lastLine(install.stderr)})`)
    }
    const after = findChromium()
    if (after.path !== undefined) return { path: after.path }
  }
  if (!process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD) {
    log("No Chromium found: downloading Playwright's (playwright-core install chromium)...")
    // Run from the project root (npm runs scripts there); playwright-core exports no `cli` path.
    const cli = join(
      dirname(createRequire(resolve('package.json')).resolve('playwright-core/package.json')),
      'cli.js',
    )
    const install = run(process.execPath, [cli, 'install', 'chromium'])
    if (install.status !== 0) {
      tried.push(`playwright-core install chromium failed (${lastLine(install.stderr)})`)
    }
    const after = findChromium()
    if (after.path !== undefined) return { path: after.path }
  }
  return { error: noBrowserLine([found.why, ...tried].join('; ')) }
}

const lastLine = (text: string | null) =>
  (text ?? '').trim().split('\n').filter(Boolean).at(-1)?.slice(0, 200) ?? 'no output'
