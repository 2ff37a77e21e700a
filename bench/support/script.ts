import { spawnSync } from 'node:child_process'
import { stopLaunched } from '../../test/support/npm-start'

/**
 * Runs `measure` when the module at `moduleUrl` is the process's entry (the bench runs each
 * real-`npm start` measurement in a child process of its own): its figures as one JSON line on
 * stdout, every `npm start` it launched stopped, exit 1 with the stack on failure.
 */
export const runAsScript = (moduleUrl: string, measure: () => Promise<unknown>) => {
  if (moduleUrl !== `file://${process.argv[1]}`) return
  measure()
    .then((figures) => {
      process.stdout.write(`${JSON.stringify(figures)}\n`)
      return stopLaunched()
    })
    .catch(async (error) => {
      process.stderr.write(`${(error as Error).stack}\n`)
      await stopLaunched()
      process.exit(1)
    })
}

/**
 * Runs the measurement script `path` (one that ends in `runAsScript`) in a child process, as the
 * bench runs each real-`npm start` measurement: its figures, or `failed` with the end of its stderr.
 */
export const runScript = <F>(
  root: string,
  path: string,
  timeoutMs: number,
): { figures: F } | { figures?: undefined; failed: string } => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', path], {
    cwd: root,
    encoding: 'utf8',
    timeout: timeoutMs,
  })
  // The figures: from the first line that opens a JSON object to the end (one line, or indented).
  const start = run.stdout.search(/^\{/m)
  if (run.status === 0 && start >= 0) return { figures: JSON.parse(run.stdout.slice(start)) as F }
  console.error(`${path} failed:\n${run.stderr.slice(-4000)}`)
  return { failed: run.stderr.slice(-2000) }
}
