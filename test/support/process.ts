import { readFileSync } from 'node:fs'

/**
 * True while a process with this pid exists (signal 0 only checks) and is not a zombie: a killed
 * process nobody has reaped yet (containers often lack an init that reaps) is dead.
 */
export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return true
  }
}

/**
 * Resolves once the process with this pid is gone. No deadline of its own: how soon depends on the
 * machine, that it goes does not (the test's own timeout ends a wait for one that never goes).
 */
export const gone = async (pid: number) => {
  while (isAlive(pid)) await new Promise((r) => setTimeout(r, 50))
  return true
}
