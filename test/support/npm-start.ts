import { type ChildProcess, spawn } from 'node:child_process'
import { resolve } from 'node:path'

/** `npm start` as a user runs it: a child process with its own .local folder and a free port. */
const ROOT = resolve(__dirname, '../..')
const TSX = resolve(ROOT, 'node_modules/tsx/dist/cli.mjs')

export type Started = { child: ChildProcess; output: () => string; exited: Promise<number | null> }

export const launchNpmStart = (
  localDir: string,
  args: string[],
  env: Record<string, string> = {},
): Started => {
  const child = spawn(process.execPath, [TSX, 'bin/local-server.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, VS_LOCAL_DIR: localDir, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (d) => {
    output += d
  })
  child.stderr?.on('data', (d) => {
    output += d
  })
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  return { child, output: () => output, exited }
}

/** Waits for `condition`; fails with the server's output if it exits or `timeoutMs` passes. */
export const waitFor = async (
  condition: () => boolean,
  what: string,
  started: Started,
  timeoutMs = 60_000,
) => {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (started.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`gave up waiting for ${what}; output:\n${started.output()}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}
