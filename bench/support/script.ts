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
