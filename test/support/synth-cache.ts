import { createHash } from 'node:crypto'
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * The run's synth cache: test/support/global-setup.ts makes a fresh folder for each `jest` run and
 * names it here (workers inherit the variable); global-teardown.ts removes it. A template is only
 * ever read from the run that synthesized it, so no edit of lib/ or functions/ can meet a stale one.
 */
export const SYNTH_CACHE_ENV = 'VS_SYNTH_CACHE'

/** Sleeps the thread: synth() is synchronous, called at a test file's top level. */
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Takes the key's lock (a file holding this pid) if no other live process holds it. */
const tryLock = (lock: string) => {
  try {
    const fd = openSync(lock, 'wx')
    writeSync(fd, String(process.pid))
    closeSync(fd)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  // A worker that died while synthesizing leaves its lock: take it over. An empty file is one
  // being written this moment, by a live process.
  const holder = Number(readFileSync(lock, 'utf8') || Number.NaN)
  if (Number.isInteger(holder) && !alive(holder)) unlinkSync(lock)
  return false
}

/**
 * The value stored under `key` for this run, made by `make(outdir)` in whichever worker asks
 * first; a worker asking meanwhile waits for it instead of making it again. A `make` that throws
 * stores nothing, so every caller sees the error itself. Without a run folder (a file run by
 * another tool than jest), it makes the value in a temporary folder of its own.
 */
export const cached = <T>(key: unknown, make: (outdir: string) => T): T => {
  const dir = process.env[SYNTH_CACHE_ENV]
  if (!dir) return make(mkdtempSync(join(tmpdir(), 'cdk-out-')))
  const name = createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 16)
  const file = join(dir, `${name}.json`)
  const lock = join(dir, `${name}.lock`)
  for (;;) {
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as T
    if (tryLock(lock)) break
    pause(50)
  }
  try {
    // Another worker may have finished between our look and our lock.
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as T
    const value = make(join(dir, `${name}.out`))
    const partial = `${file}.${process.pid}`
    writeFileSync(partial, JSON.stringify(value))
    renameSync(partial, file)
    return value
  } finally {
    unlinkSync(lock)
  }
}
