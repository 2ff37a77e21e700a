// True while the process exists and is not a zombie (a killed process nobody has reaped yet).
import { isAlive } from '../../local/orphan-processes'

export { isAlive }

/**
 * Resolves once the process with this pid is gone. No deadline of its own: how soon depends on the
 * machine, that it goes does not (the test's own timeout ends a wait for one that never goes).
 */
export const gone = async (pid: number) => {
  while (isAlive(pid)) await new Promise((r) => setTimeout(r, 50))
  return true
}
