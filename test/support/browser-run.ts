import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, sep } from 'node:path'
import { promisify } from 'node:util'
import type { Config } from '@jest/types'
import { globsToMatcher } from 'jest-util'
import { type BrowserServer, chromium } from 'playwright-core'
import { findChromium, noBrowserLine } from './chromium'
import { CHROMIUM_ARGS } from './chromium-args'
import { launchNpmStart, type Started, waitFor } from './npm-start'
import { ROOT } from './root'

/**
 * What the console's browser suites share for a whole jest run, started by global set-up only when
 * the run includes one of them: the console built once, one Chromium (a browser server the files
 * connect to, each with contexts of its own) and one `npm start -- --in-memory` (each file makes an
 * issuer of its own there). Workers find them through these environment variables.
 */
export const BROWSER_RUN_ENV = {
  consoleDir: 'VS_TEST_CONSOLE_DIR',
  browserWs: 'VS_TEST_BROWSER_WS',
  /** Why there is no browser: the one line the browser files fail with. */
  noBrowser: 'VS_TEST_NO_BROWSER',
  server: 'VS_TEST_CONSOLE_SERVER',
} as const

/** The shared server as workers read it: its folder (records, seed) and address. */
export type SharedServerRecord = { dir: string; baseUrl: string }

const VITE = resolve(ROOT, 'node_modules/vite/bin/vite.js')
const run = promisify(execFile)
const CONSOLE_TESTS = resolve(ROOT, 'test/console')

/**
 * The console built from its sources now, into a folder of its own: a stale console/dist never
 * hides a change, and nothing else writes there.
 */
export const buildConsole = async (outDir: string) => {
  await run(
    process.execPath,
    [VITE, 'build', '--logLevel', 'warn', '--outDir', outDir, '--emptyOutDir'],
    { cwd: resolve(ROOT, 'console') },
  )
  return outDir
}

/** `npm start -- --in-memory` in `dir`, serving `consoleDir`, once its banner is out. */
export const startNpmStart = async (dir: string, consoleDir: string) => {
  const started = launchNpmStart(dir, ['--in-memory'], { VS_CONSOLE_DIR: consoleDir })
  try {
    await waitFor(
      () => started.output().includes('Ctrl-C stops'),
      'the ready banner',
      started,
      120_000,
    )
  } catch (error) {
    await started.stop()
    throw error
  }
  const running = JSON.parse(readFileSync(join(dir, 'dynamodb-endpoint.json'), 'utf8')) as {
    baseUrl: string
  }
  return { started, baseUrl: running.baseUrl }
}

/**
 * Whether this run selects a browser suite: one of test/console/*.test.ts under the project's
 * roots, matched by its testMatch and the command line's patterns, not ignored. A run of other
 * files (`npx jest test/unit/...`) starts none of this.
 */
export const selectsBrowserSuites = (
  globalConfig: Config.GlobalConfig,
  projectConfig: Config.ProjectConfig,
) => {
  if (!existsSync(CONSOLE_TESTS)) return false
  const files = readdirSync(CONSOLE_TESTS)
    .filter((name) => name.endsWith('.test.ts') && name !== 'browser-setup.test.ts')
    .map((name) => join(CONSOLE_TESTS, name))
  const inRoots = (file: string) =>
    (projectConfig.roots ?? [ROOT]).some((root) => file.startsWith(resolve(root) + sep))
  const matches =
    projectConfig.testMatch?.length > 0 ? globsToMatcher(projectConfig.testMatch) : () => true
  const ignored = (file: string) =>
    (projectConfig.testPathIgnorePatterns ?? []).some((p) => new RegExp(p).test(file))
  const patterns = globalConfig.testPathPatterns as unknown as
    | { isSet(): boolean; toExecutor(o: { rootDir: string }): { isMatch(p: string): boolean } }
    | undefined
  const chosen = (file: string) =>
    patterns === undefined ||
    !patterns.isSet() ||
    patterns.toExecutor({ rootDir: globalConfig.rootDir }).isMatch(file)
  return files.some((f) => inRoots(f) && matches(f) && !ignored(f) && chosen(f))
}

export type BrowserRun = { stop: () => Promise<void>; pids: Record<string, number> }

/**
 * Builds the console, launches Chromium's browser server and starts the shared `npm start`, then
 * sets BROWSER_RUN_ENV for the workers. On any failure, what did start is stopped and the error
 * thrown. No Chromium on the machine is not a failure here: the browser files fail with its line.
 */
export const startBrowserRun = async (): Promise<BrowserRun> => {
  const dir = mkdtempSync(join(tmpdir(), 'vs-browser-run-'))
  const consoleDir = join(dir, 'console-dist')
  let browserServer: BrowserServer | undefined
  let server: Started | undefined
  const stop = async () => {
    await Promise.all([browserServer?.close().catch(() => browserServer?.kill()), server?.stop()])
    rmSync(dir, { recursive: true, force: true })
  }
  const found = findChromium()
  const serverDir = join(dir, 'server')
  // Side by side; settled both, so a failure of one never leaves the other running.
  const [built, launched] = await Promise.allSettled([
    buildConsole(consoleDir).then(async () => {
      const started = await startNpmStart(serverDir, consoleDir)
      server = started.started
      return started.baseUrl
    }),
    found.path === undefined
      ? Promise.resolve(undefined)
      : chromium.launchServer({ executablePath: found.path, args: CHROMIUM_ARGS, timeout: 60_000 }),
  ])
  if (launched.status === 'fulfilled') browserServer = launched.value
  if (built.status === 'rejected' || launched.status === 'rejected') {
    await stop()
    throw built.status === 'rejected' ? built.reason : (launched as PromiseRejectedResult).reason
  }
  process.env[BROWSER_RUN_ENV.server] = JSON.stringify({
    dir: serverDir,
    baseUrl: built.value,
  } satisfies SharedServerRecord)
  process.env[BROWSER_RUN_ENV.consoleDir] = consoleDir
  if (browserServer) process.env[BROWSER_RUN_ENV.browserWs] = browserServer.wsEndpoint()
  if (found.path === undefined) process.env[BROWSER_RUN_ENV.noBrowser] = noBrowserLine(found.why)
  const pids: Record<string, number> = {}
  if (server?.child.pid) pids['browser suites npm start'] = server.child.pid
  const chromiumPid = browserServer?.process().pid
  if (chromiumPid) pids.Chromium = chromiumPid
  return { stop, pids }
}
