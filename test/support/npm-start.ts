import { type ChildProcess, spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT } from './root'

/** `npm start` as a user runs it: a child process with its own .local folder and a free port. */
const TSX = pathToFileURL(createRequire(resolve(ROOT, 'package.json')).resolve('tsx')).href

export type Started = {
  child: ChildProcess
  output: () => string
  exited: Promise<number | null>
  /** Ctrl-C, and SIGKILL if it has not ended within `graceMs`. Resolves once it has exited. */
  stop: (graceMs?: number) => Promise<void>
}

/**
 * Every `npm start` this test file launched. Each is stopped after the file's tests whatever
 * happened (a failed set-up, a timeout, another afterAll that threw: see the hook below), and one
 * launched after that (a set-up still running when its suite gave up) is stopped at once.
 * Should this process die without running hooks (a killed worker), each server stops itself:
 * VS_STOP_WITH_PID makes it watch this process (bin/local-server.ts), and DynamoDB Local and the
 * emulator go with it.
 */
const launched = new Set<Started>()
let closed = false

export const stopLaunched = async () => {
  closed = true
  await Promise.all([...launched].map((started) => started.stop()))
}

// Registered when a test file imports this module: the file's top level, after its own hooks.
if (typeof afterAll === 'function') afterAll(stopLaunched)

export const launchNpmStart = (
  localDir: string,
  args: string[],
  env: Record<string, string> = {},
): Started => {
  // node with tsx's loader, as the emulator is run: the child is the server itself, no wrapper.
  const child = spawn(process.execPath, ['--import', TSX, 'bin/local-server.ts', ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      VS_LOCAL_DIR: localDir,
      PORT: '0',
      VS_STOP_WITH_PID: String(process.pid),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (d) => {
    output += d
  })
  child.stderr?.on('data', (d) => {
    output += d
  })
  const exited = new Promise<number | null>((r) => {
    if (child.exitCode !== null || child.signalCode !== null) r(child.exitCode)
    else child.once('exit', (code) => r(code))
  })
  const stop = async (graceMs = 20_000) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT')
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      await exited
      clearTimeout(timer)
    }
    launched.delete(started)
  }
  const started: Started = { child, output: () => output, exited, stop }
  launched.add(started)
  if (closed) void stop()
  return started
}

/**
 * Waits for `condition` on the process's output: checked now and on each chunk it writes, so the
 * wait ends on the output itself, not on a poll. Fails with the output once the process has ended
 * (its output closed) without it, or when `timeoutMs` passes.
 */
export const waitFor = (
  condition: () => boolean,
  what: string,
  started: Pick<Started, 'child' | 'output'>,
  timeoutMs = 60_000,
) =>
  new Promise<void>((resolve, reject) => {
    const { child } = started
    const settle = (error?: Error) => {
      clearTimeout(timer)
      child.stdout?.off('data', check)
      child.stderr?.off('data', check)
      child.off('close', ended)
      if (error) reject(error)
      else resolve()
    }
    const gaveUp = () => new Error(`gave up waiting for ${what}; output:\n${started.output()}`)
    // Listeners run in order: the output launchNpmStart collects already holds this chunk.
    function check() {
      if (condition()) settle()
    }
    function ended() {
      if (condition()) settle()
      else settle(gaveUp())
    }
    const timer = setTimeout(() => settle(gaveUp()), timeoutMs)
    child.stdout?.on('data', check)
    child.stderr?.on('data', check)
    child.once('close', ended)
    if (condition()) settle()
    else if (
      (child.exitCode !== null || child.signalCode !== null) &&
      child.stdout?.readableEnded !== false &&
      child.stderr?.readableEnded !== false
    )
      ended()
  })
