import { parseArgs } from 'node:util'
import { GrantApiError, GrantClient } from '../client/src'
import { keyPrefix, parseApiKey } from '../functions/domain/api-key'
import { idPattern } from '../functions/domain/ids'
import type { Io } from './admin-cli'
import { SmokeFailure } from './smoke-answers'
import { type SmokeStep, smokeSteps } from './smoke-steps'

/**
 * `npm run smoke`: proves a deployed stage (or `npm start`) works, one line per step with its
 * latency. Exit codes: 0 every step passed; 1 the arguments are wrong (nothing was sent); 2 a
 * step failed (its line says why, on stderr).
 */
export const USAGE =
  'Usage: npm run smoke -- --api <url> --key <TEST key> --program <TEST program id> [--console <url>]'

const HELP = `${USAGE}

Runs against a stage (the ApiUrl and ConsoleUrl outputs of npx cdk deploy) or npm start: the grant
call, its replay with the same Idempotency-Key, the grant's GET and history, a TEST move to
accepted, the recipient's balance, a cancel whose share goes back to the pool, the problem+json
of a wrong key and, with --console, the console's config.json. Changes TEST data only: two grants
of one share to smoke+...@example.com addresses. A LIVE key is refused.

Exit codes: 0 passed; 1 wrong arguments (nothing sent); 2 a step failed.`

/** Each plain request (and each attempt of the client's) is given up after this long. */
const TIMEOUT_MS = 10_000

class UsageError extends Error {}

const httpUrl = (value: string, flag: string) => {
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new UsageError(`${flag} must be an http or https URL, not ${JSON.stringify(value)}.`)
  }
  return value.replace(/\/+$/, '')
}

type Parsed = { help: true } | { api: string; key: string; program: string; console?: string }

const parse = (argv: string[]): Parsed => {
  let values: Record<string, string | boolean | undefined>
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: {
        api: { type: 'string' },
        key: { type: 'string' },
        program: { type: 'string' },
        console: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }))
  } catch (error) {
    // parseArgs's first sentence names the option; the rest is advice about positionals.
    throw new UsageError(`${(error as Error).message.split('. ')[0]?.replace(/\.$/, '')}.`)
  }
  if (values.help) return { help: true }
  const { api, key, program, console: consoleUrl } = values as Record<string, string | undefined>
  const missing = (['api', 'key', 'program'] as const).filter((f) => !values[f])
  if (missing.length > 0 || api === undefined || key === undefined || program === undefined) {
    throw new UsageError(`${missing.map((f) => `--${f}`).join(', ')} missing.`)
  }
  const mode = key.startsWith(keyPrefix('LIVE')) ? 'LIVE' : parseApiKey(key)?.mode
  if (mode === 'LIVE') {
    throw new UsageError(
      '--key is a LIVE key: the smoke test makes grants, so it runs with a TEST key (vs_test_...) only.',
    )
  }
  if (mode === undefined) {
    throw new UsageError('--key is not an API key (vs_test_ and 30 letters or digits).')
  }
  if (!idPattern('program').test(program)) {
    throw new UsageError('--program is not a program id (prg_ and 26 letters or digits).')
  }
  return {
    api: httpUrl(api, '--api'),
    key,
    program,
    ...(consoleUrl === undefined ? {} : { console: httpUrl(consoleUrl, '--console') }),
  }
}

/** A failed step's reason, in one line. */
const reasonOf = (error: unknown, api: string): string => {
  if (error instanceof SmokeFailure) return error.message
  if (error instanceof GrantApiError) {
    if (error.status === 0) return `no answer from ${api}: ${error.detail}`
    const hint =
      error.status === 401
        ? ' Is --key a key of this stage?'
        : error.code === 'program_not_found' || error.code === 'mode_mismatch'
          ? " Is --program a TEST program of --key's issuer?"
          : ''
    const request = error.requestId ? ` (request ${error.requestId})` : ''
    return `${error.status} ${error.code}: ${error.detail}${hint}${request}`
  }
  const e = error as Error
  const cause = (e as { cause?: { message?: unknown } })?.cause?.message
  return `${e?.name}: ${String(e?.message).split('\n')[0]}${typeof cause === 'string' ? `: ${cause}` : ''}`
}

const ms = (since: number) => Math.round(performance.now() - since)

/** Runs the steps in order; stops at the first that fails. */
const runSteps = async (steps: SmokeStep[], io: Io, api: string): Promise<number> => {
  const started = performance.now()
  const width = Math.max(...steps.map((s) => s.name.length))
  for (const step of steps) {
    const at = performance.now()
    try {
      const note = await step.run()
      io.out(`ok    ${step.name.padEnd(width)} ${String(ms(at)).padStart(5)} ms  ${note}`)
    } catch (error) {
      io.err(
        `FAIL  ${step.name.padEnd(width)} ${String(ms(at)).padStart(5)} ms  ${reasonOf(error, api)}`,
      )
      return 2
    }
  }
  io.out(`smoke passed: ${steps.length} steps in ${ms(started)} ms against ${api}`)
  return 0
}

/** `npm run smoke` given its arguments: prints to `io` and resolves to the exit code. */
export const runSmoke = async (argv: string[], io: Io): Promise<number> => {
  let parsed: Parsed
  try {
    parsed = parse(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    io.err(`error: ${error.message} ${USAGE}`)
    return 1
  }
  if ('help' in parsed) {
    io.out(HELP)
    return 0
  }
  // One attempt a call: a smoke test reports what the stage answers, it does not retry past it.
  const client = new GrantClient({
    apiKey: parsed.key,
    baseUrl: parsed.api,
    retry: { maxAttempts: 1, attemptTimeoutMs: TIMEOUT_MS },
  })
  const steps = smokeSteps({
    client,
    api: parsed.api,
    programId: parsed.program,
    timeoutMs: TIMEOUT_MS,
    ...(parsed.console === undefined ? {} : { consoleUrl: parsed.console }),
  })
  return runSteps(steps, io, parsed.api)
}
