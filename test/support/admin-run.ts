import { execFile } from 'node:child_process'
import { resolve } from 'node:path'
import { promisify } from 'node:util'
import type { Io } from '../../cli/admin-cli'
import { type CliOptions, runCli } from '../../cli/main'
import { ROOT } from './root'

/** What the admin CLI printed and its exit code, as a shell sees them. */
export type CliResult = { code: number; stdout: string; stderr: string }

/**
 * The admin CLI in this process (cli/main.ts, which bin/admin.ts runs on process.argv), pointed
 * at `localDir` as VS_LOCAL_DIR points the binary. Each line ends in "\n", as the binary writes
 * it, so a test reads the same text either way.
 */
export const runAdmin = async (
  args: string[],
  localDir: string,
  options: Omit<CliOptions, 'localDir'> = {},
): Promise<CliResult> => {
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
  const code = await runCli(args, io, { ...options, localDir })
  return { code, stdout, stderr }
}

const TSX = resolve(ROOT, 'node_modules/tsx/dist/cli.mjs')

/**
 * The real binary in a child process, for what only a process shows: its start-up, what it reads
 * from the environment, its exit code, and stdout apart from stderr. `command` is `tsx` (as
 * bin/admin.ts's shebang runs it) or `npm` (as `npm run admin -- ...`).
 */
export const spawnAdmin = async (
  args: string[],
  env: Record<string, string>,
  command: 'tsx' | 'npm' = 'tsx',
): Promise<CliResult> => {
  const [file, argv] =
    command === 'tsx'
      ? [process.execPath, [TSX, 'bin/admin.ts', ...args]]
      : ['npm', ['run', '--silent', 'admin', '--', ...args]]
  try {
    const { stdout, stderr } = await promisify(execFile)(file, argv, {
      cwd: ROOT,
      env: { ...process.env, ...env },
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}
