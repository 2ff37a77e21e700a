import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { findChromium } from '../support/chromium'
import { launchBrowser } from './browser'

/**
 * `npm test`'s first step (test/support/ensure-chromium.ts, the `pretest` script) on a machine
 * without a browser. A private mount namespace (root and `unshare -m`) hides /usr/bin/chromium and
 * apt-get behind empty files, so the script meets exactly what a fresh machine offers; the real
 * machine is untouched.
 */
const ROOT = resolve(__dirname, '../..')
const TSX = resolve(ROOT, 'node_modules/tsx/dist/cli.mjs')
const CHROMIUM = '/usr/bin/chromium'
const isolated =
  process.getuid?.() === 0 &&
  existsSync(CHROMIUM) &&
  spawnSync('unshare', ['-m', 'true']).status === 0
const inIsolation = isolated ? test : test.skip
if (!isolated) {
  console.warn(
    'browser-setup: the fresh-machine cases need root, unshare -m and /usr/bin/chromium; not run',
  )
}

const dir = mkdtempSync(join(tmpdir(), 'vs-browser-setup-'))
const EMPTY = join(dir, 'empty')
writeFileSync(EMPTY, '')
const APT_LOG = join(dir, 'apt.log')
/** An apt-get whose `install` brings back the hidden /usr/bin/chromium, as the package would. */
const FAKE_APT = join(dir, 'apt-get')
writeFileSync(
  FAKE_APT,
  `#!/bin/sh\necho "$*" >> ${APT_LOG}\ncase "$1" in install) umount ${CHROMIUM};; esac\nexit 0\n`,
)
chmodSync(FAKE_APT, 0o755)

/** ensure-chromium.ts with no browser on the machine and `apt` in place of apt-get. */
const ensureOnFreshMachine = (apt: string, env: Record<string, string>) => {
  const script = [
    `mount --bind ${EMPTY} ${CHROMIUM}`,
    `mount --bind ${apt} /usr/bin/apt-get`,
    `exec "${process.execPath}" "${TSX}" test/support/ensure-chromium.ts`,
  ].join(' && ')
  const base = { ...process.env }
  delete base.CHROMIUM_PATH
  delete base.VS_CHROMIUM
  const result = spawnSync('unshare', ['-m', 'sh', '-c', script], {
    cwd: ROOT,
    env: { ...base, ...env },
    encoding: 'utf8',
  })
  return { status: result.status, stderr: result.stderr.trim(), stdout: result.stdout.trim() }
}

const ONE_LINE =
  /^error: the console's browser tests need Chromium: .+; install Chromium \(Debian\/Ubuntu: sudo apt-get install chromium; any system with downloads: npx playwright-core install chromium\) or set CHROMIUM_PATH to a Chromium or Chrome executable\.$/

describe('npm test on a machine without a browser', () => {
  inIsolation('installs Debian’s chromium when running as root where apt-get is', () => {
    const run = ensureOnFreshMachine(FAKE_APT, { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' })
    expect(run).toEqual({
      status: 0,
      stdout: '',
      stderr: "No Chromium found: installing Debian's (apt-get install chromium)...",
    })
    expect(readFileSync(APT_LOG, 'utf8').split('\n')).toEqual(
      expect.arrayContaining(['update -qq', 'install -y -qq chromium']),
    )
  })

  inIsolation(
    'without apt-get, tries Playwright’s installer, and says in one line what to install when the download fails',
    () => {
      // A download host that refuses at once: this machine has no internet, another may have.
      const run = ensureOnFreshMachine(EMPTY, { PLAYWRIGHT_DOWNLOAD_HOST: 'http://127.0.0.1:9' })
      expect(run.status).toBe(1)
      const lines = run.stderr.split('\n')
      expect(lines[0]).toBe(
        "No Chromium found: downloading Playwright's (playwright-core install chromium)...",
      )
      expect(lines.slice(1)).toHaveLength(1)
      expect(lines[1]).toMatch(ONE_LINE)
      expect(lines[1]).toContain('playwright-core install chromium failed')
    },
  )

  inIsolation('with neither, stops at once with one line', () => {
    const run = ensureOnFreshMachine(EMPTY, { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' })
    expect(run.status).toBe(1)
    expect(run.stderr).toMatch(ONE_LINE)
    expect(run.stderr).toContain('no Chromium or Chrome found')
  })
})

describe('finding the browser', () => {
  const saved = process.env.CHROMIUM_PATH
  afterEach(() => {
    if (saved === undefined) delete process.env.CHROMIUM_PATH
    else process.env.CHROMIUM_PATH = saved
  })

  test('CHROMIUM_PATH wins, and one that is not there is an error, never another browser', async () => {
    process.env.CHROMIUM_PATH = process.execPath
    expect(findChromium()).toEqual({ path: process.execPath, source: 'CHROMIUM_PATH' })
    process.env.CHROMIUM_PATH = '/nonexistent/chromium'
    await expect(launchBrowser()).rejects.toThrow(ONE_LINE)
    const script = spawnSync(process.execPath, [TSX, 'test/support/ensure-chromium.ts'], {
      cwd: ROOT,
      env: { ...process.env, CHROMIUM_PATH: '/nonexistent/chromium' },
      encoding: 'utf8',
    })
    expect(script.status).toBe(1)
    expect(script.stderr.trim()).toMatch(ONE_LINE)
  })

  test('a browser found is one that starts', async () => {
    delete process.env.CHROMIUM_PATH
    const browser = await launchBrowser()
    try {
      const page = await browser.newPage()
      await page.setContent('<h1>ok</h1>')
      expect(await page.textContent('h1')).toBe('ok')
    } finally {
      await browser.close()
    }
  })
})
