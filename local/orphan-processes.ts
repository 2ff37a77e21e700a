/**
 * The processes an earlier `npm start` (bin/local-server.ts) may have left behind, and whether a
 * process is alive (tests ask too).
 */
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'

export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    // A killed process nobody has reaped yet (containers often lack an init) is a zombie: dead.
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return true
  }
}

/**
 * Stops a DynamoDB Local (or a Cognito emulator) left behind by a killed `npm start`, and only that:
 * the process must still be what its command line says it is. (The emulator exits by itself when
 * the server that started it goes; this is for the odd one that did not.)
 */
export const stopOrphan = async (pid: number | undefined, marker: string, name: string) => {
  if (pid === undefined) return
  let cmdline = ''
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  } catch {
    return // gone, or no /proc (macOS): nothing we can safely identify
  }
  if (!cmdline.includes(marker)) return
  console.error(`Stopping ${name} left running by an earlier npm start (pid ${pid}).`)
  process.kill(pid, 'SIGTERM')
  for (let i = 0; i < 50 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100))
  if (isAlive(pid)) process.kill(pid, 'SIGKILL')
}

const waitForExit = (child: ChildProcess, ms: number) =>
  new Promise<boolean>((resolveExit) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolveExit(true)
    const timer = setTimeout(() => resolveExit(false), ms)
    child.once('exit', () => {
      clearTimeout(timer)
      resolveExit(true)
    })
  })

/** Stops a child this process started (an emulator): SIGTERM, then SIGKILL if it lingers 5 s. */
export const stopChild = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGTERM')
  if (!(await waitForExit(child, 5_000))) {
    child.kill('SIGKILL')
    await waitForExit(child, 5_000)
  }
}
