import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { isAlive } from '../support/process'

/**
 * Whatever goes wrong in a test file, what it started stops: a set-up that fails (with a server
 * still starting), a test that times out, an afterAll that throws, even jest killed with SIGKILL.
 * Each case runs test/support/fixtures/leaky-suite.fixture.ts in a jest of its own, which writes
 * down every process it starts; every one of them, and every process that inherited the run's
 * marker in its environment (Linux: /proc), must be gone shortly after. The set-up that fails and
 * the test that times out are two describes of one fixture run (one jest, one global set-up);
 * jest killed needs a run of its own.
 */
const ROOT = resolve(__dirname, '../..')
const JEST = resolve(ROOT, 'node_modules/jest/bin/jest.js')

type Recorded = { what: string; pid: number; dir?: string }

const runFixture = (mode: string, env: Record<string, string> = {}) => {
  const marker = randomUUID()
  const pidsFile = join(mkdtempSync(join(tmpdir(), 'vs-fixture-')), 'pids.jsonl')
  const child = spawn(
    process.execPath,
    [
      JEST,
      '--rootDir',
      ROOT,
      '--roots',
      '<rootDir>/test/support/fixtures',
      '--testMatch',
      '**/leaky-suite.fixture.ts',
      '--runInBand',
      '--ci',
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        VS_FIXTURE: mode,
        VS_FIXTURE_PIDS: pidsFile,
        VS_FIXTURE_MARKER: marker,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  child.stdout?.on('data', (d) => {
    output += d
  })
  child.stderr?.on('data', (d) => {
    output += d
  })
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  const recorded = (): Recorded[] =>
    existsSync(pidsFile)
      ? readFileSync(pidsFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Recorded)
      : []
  return { child, exited, output: () => output, recorded, marker }
}

/** Processes whose environment carries the marker: everything the fixture's jest started. */
const carrying = (marker: string): number[] => {
  if (!existsSync('/proc/self/environ')) return []
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      if (!isAlive(Number(entry))) continue
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(marker))
        found.push(Number(entry))
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found
}

/**
 * The recorded processes still alive and the marked ones, once none are. No deadline of its own:
 * how soon they go depends on the machine, that they go does not (the test's timeout ends a wait
 * for one that never goes).
 */
const survivors = async (run: ReturnType<typeof runFixture>) => {
  for (;;) {
    const alive = run.recorded().filter((r) => isAlive(r.pid))
    const marked = carrying(run.marker)
    if (alive.length === 0 && marked.length === 0) return { alive, marked }
    await new Promise((r) => setTimeout(r, 100))
  }
}

const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').slice(0, 200)
  } catch {
    return '?'
  }
}

const expectNoSurvivors = async (run: ReturnType<typeof runFixture>) => {
  const left = await survivors(run)
  expect({
    alive: left.alive,
    marked: left.marked.map((pid) => `${pid} ${cmdline(pid)}`),
  }).toEqual({ alive: [], marked: [] })
}

/**
 * The fixture's test times out after this long: its server may be up or still starting then, and
 * either way must stop (a server stopped while starting is the set-up case's second one too).
 */
const TEST_TIMEOUT_MS = 3_000

/** The run both of the first two tests read: a set-up that fails, then a test that times out. */
let failing: ReturnType<typeof runFixture> | undefined
const failingRun = () => {
  failing ??= runFixture('set-up-fails,timeout', {
    VS_FIXTURE_TEST_TIMEOUT: String(TEST_TIMEOUT_MS),
  })
  return failing
}
afterAll(() => failing?.child.kill('SIGKILL'))

describe('processes a test file starts', () => {
  it('stop when its set-up fails (a server still starting) and its afterAll throws', async () => {
    const run = failingRun()
    try {
      expect(await run.exited).toBe(1)
      expect(run.output()).toContain("error: the console's browser tests need Chromium")
      expect(run.output()).toContain('afterAll failed on purpose')
      const what = run.recorded().map((r) => r.what)
      expect(what).toEqual(
        expect.arrayContaining([
          'run DynamoDB Local',
          'run emulator',
          'first npm start',
          'first DynamoDB Local',
          'first emulator',
          'second npm start',
        ]),
      )
      await expectNoSurvivors(run)
    } finally {
      run.child.kill('SIGKILL')
    }
  })

  it('stop when a test times out and afterAll throws', async () => {
    const run = failingRun()
    try {
      expect(await run.exited).toBe(1)
      expect(run.output()).toContain(`Exceeded timeout of ${TEST_TIMEOUT_MS} ms`)
      expect(run.recorded().map((r) => r.what)).toContain('in-test npm start')
      await expectNoSurvivors(run)
    } finally {
      run.child.kill('SIGKILL')
    }
  })

  it('stop when jest itself is killed with SIGKILL', async () => {
    const run = runFixture('killed')
    try {
      // Until its server is up (no deadline of its own), or the fixture ended without it.
      while (!run.recorded().some((r) => r.what === 'in-test emulator')) {
        if (run.child.exitCode !== null) {
          throw new Error(`the fixture never got its server up:\n${run.output()}`)
        }
        await new Promise((r) => setTimeout(r, 100))
      }
      expect(run.recorded().every((r) => isAlive(r.pid))).toBe(true)
      // The run's emulator and the server's, both in memory: their data folders go with them.
      const dirs = run.recorded().flatMap((r) => (r.dir ? [r.dir] : []))
      expect(dirs).toHaveLength(2)
      expect(dirs.filter((dir) => existsSync(dir))).toEqual(dirs)
      run.child.kill('SIGKILL')
      await run.exited
      await expectNoSurvivors(run)
      // The run's emulator lost its parent to SIGKILL, as npm start's does when npm start is
      // killed (local/cognito-local-host.ts: on disconnect), and removed its data even then.
      expect(dirs.filter((dir) => existsSync(dir))).toEqual([])
    } finally {
      run.child.kill('SIGKILL')
    }
  })
})
