import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import type { Io } from '../../cli/admin-cli'
import { runSmoke } from '../../cli/smoke'
import type { CliResult } from './admin-run'
import { ROOT } from './root'

/**
 * `npm run smoke` in this process (cli/smoke.ts, which bin/smoke.ts runs on process.argv); each
 * line ends in "\n", as the binary writes it.
 */
export const runSmokeHere = async (args: string[]): Promise<CliResult> => {
  let stdout = ''
  let stderr = ''
  const io: Io = {
    out: (text) => {
      stdout += `${text}\n`
    },
    err: (text) => {
      stderr += `${text}\n`
    },
  }
  const code = await runSmoke(args, io)
  return { code, stdout, stderr }
}

/** `npm run --silent smoke -- ...` as a user types it: the script, the binary, its exit code. */
export const spawnSmoke = async (args: string[]): Promise<CliResult> => {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      'npm',
      ['run', '--silent', 'smoke', '--', ...args],
      { cwd: ROOT },
    )
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}
