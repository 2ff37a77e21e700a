import { randomBytes, randomUUID } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import type { GrantClient, GrantRequest } from '../client/src'
import { generateApiKey } from '../functions/domain/api-key'
import { CONSOLE_PATH } from '../lib/console-site'
import {
  BalanceSchema,
  ConsoleConfigSchema,
  GrantDetailSchema,
  GrantSchema,
  ProblemSchema,
  ProgramSchema,
  parseAnswer,
  SmokeFailure,
} from './smoke-answers'

/** One step: it resolves to the note printed after its latency, or throws its one-line reason. */
export type SmokeStep = { name: string; run: () => Promise<string> }

export type SmokeTarget = {
  client: GrantClient
  /** The API's base URL, no trailing slash. */
  api: string
  programId: string
  /** The console's URL (`ConsoleUrl`), when given. */
  consoleUrl?: string
  /** How long one plain HTTP request (the wrong key, config.json) may take. */
  timeoutMs: number
}

const fail = (reason: string): never => {
  throw new SmokeFailure(reason)
}

/** A recipient address of the smoke's own, never a magic one (docs/recipients.md). */
export const smokeRecipient = () => `smoke+${randomBytes(6).toString('hex')}@example.com`

/** A URL as one origin and path, without the trailing slash: `…/` and `…` are the same API. */
const sameUrl = (url: string) => new URL(url).href.replace(/\/+$/, '')

// The balance reads the recipient index, which DynamoDB updates shortly after the grant.
const BALANCE_READS = 20
const BALANCE_PAUSE_MS = 500

/** What the steps share: each reads what the ones before it made. */
type Run = SmokeTarget & {
  email: string
  request: GrantRequest
  idempotencyKey: string
  /** The first 201's body, as sent. */
  first: Record<string, unknown>
  grantId: string
  /** The program before grant-2. */
  issued: number
  remaining: number | null
  secondId: string
}

const readProgram = async ({ client, programId }: Run) => {
  const program = parseAnswer(ProgramSchema, await client.getProgram(programId), 'The program')
  if (program.mode !== 'TEST') fail(`program ${programId} is ${program.mode}, not TEST`)
  return program
}

const expectPool = async (run: Run, shares: number, what: string) => {
  const program = await readProgram(run)
  const want = {
    issued: run.issued + shares,
    remaining: run.remaining === null ? null : run.remaining - shares,
  }
  if (program.issued !== want.issued || program.remaining !== want.remaining) {
    fail(
      `${what}: issued ${program.issued} and remaining ${program.remaining}, expected ${want.issued} and ${want.remaining} (or another client granted on this program meanwhile)`,
    )
  }
  return `issued ${program.issued}, remaining ${program.remaining ?? 'unlimited'}`
}

/** The reference call, its replay, the grant's GET, a TEST move to accepted and its history. */
const grantSteps = (run: Run): SmokeStep[] => [
  {
    name: 'grant',
    run: async () => {
      const result = await run.client.grantTokens(run.programId, run.request, {
        idempotencyKey: run.idempotencyKey,
      })
      const grant = parseAnswer(GrantSchema, result.grant, 'The 201')
      if (result.replayed) fail('the first request was answered as a replay')
      if (grant.mode !== 'TEST' || grant.programId !== run.programId || grant.amount !== 1) {
        fail(`the 201 is a ${grant.mode} grant of ${grant.amount} in ${grant.programId}`)
      }
      run.first = result.grant as unknown as Record<string, unknown>
      run.grantId = grant.id
      return `${grant.id} to ${run.email}`
    },
  },
  {
    name: 'replay',
    run: async () => {
      const again = await run.client.grantTokens(run.programId, run.request, {
        idempotencyKey: run.idempotencyKey,
      })
      if (!again.replayed) fail('the same Idempotency-Key was not answered as a replay')
      if (!isDeepStrictEqual(again.grant, run.first)) {
        fail(`the same Idempotency-Key answered ${again.grant.id}, not the first answer`)
      }
      return `the same ${run.grantId}, Idempotent-Replayed: true`
    },
  },
  {
    name: 'read',
    run: async () => {
      const grant = parseAnswer(
        GrantDetailSchema,
        await run.client.getGrant(run.programId, run.grantId),
        'The grant',
      )
      const differs = Object.keys(run.first).find(
        (k) => k !== 'status' && !isDeepStrictEqual(grant[k as keyof typeof grant], run.first[k]),
      )
      if (differs) fail(`the grant's ${differs} is not what the 201 said`)
      if (grant.status !== 'reserved' && grant.status !== 'offered') {
        fail(`a new grant is ${grant.status}`)
      }
      return `${grant.status}, delivery ${grant.delivery}`
    },
  },
  {
    name: 'accept',
    run: async () => {
      const grant = parseAnswer(
        GrantDetailSchema,
        await run.client.testTransition(run.programId, run.grantId, { to: 'accepted' }),
        'The TEST move',
      )
      if (grant.status !== 'accepted') fail(`the move to accepted left it ${grant.status}`)
      return 'test-transition to accepted'
    },
  },
  {
    name: 'history',
    run: async () => {
      const { history } = parseAnswer(
        GrantDetailSchema,
        await run.client.getGrant(run.programId, run.grantId),
        'The grant',
      )
      const moves = history.filter((h) => h.event === 'transition')
      const last = moves.at(-1)
      if (last?.state !== 'accepted' || last.actor !== 'simulation') {
        fail(`the history does not end accepted by simulation: ${JSON.stringify(moves)}`)
      }
      return `${history.length} entries, moves ${moves.map((m) => m.state).join(' -> ')}`
    },
  },
]

/** The recipient's balance: one accepted share from one grant, however often it was sent. */
const balanceStep = (run: Run): SmokeStep => ({
  name: 'balance',
  run: async () => {
    for (let read = 1; ; read++) {
      const balance = parseAnswer(
        BalanceSchema,
        await run.client.getBalance(run.programId, run.email),
        'The balance',
      )
      const { tokenAmount, accepted, pending, grantCount, participationStatus } = balance
      if (grantCount === 0 && read < BALANCE_READS) {
        await new Promise((r) => setTimeout(r, BALANCE_PAUSE_MS))
        continue
      }
      const seen = { tokenAmount, accepted, pending, grantCount, participationStatus }
      const want = {
        tokenAmount: 1,
        accepted: 1,
        pending: 0,
        grantCount: 1,
        participationStatus: 'accepted',
      }
      if (!isDeepStrictEqual(seen, want)) {
        fail(`expected ${JSON.stringify(want)}, got ${JSON.stringify(seen)}`)
      }
      const reads = read > 1 ? ` (${read} reads)` : ''
      return `tokenAmount 1 from 1 grant (granted once), accepted${reads}`
    }
  },
})

/** A second grant holds a share of the pool, and its cancel gives it back. */
const cancelSteps = (run: Run): SmokeStep[] => [
  {
    name: 'pool',
    run: async () => {
      const program = await readProgram(run)
      run.issued = program.issued
      run.remaining = program.remaining
      return `issued ${run.issued}, remaining ${run.remaining ?? 'unlimited'}`
    },
  },
  {
    name: 'grant-2',
    run: async () => {
      const email = smokeRecipient()
      const result = await run.client.grantTokens(run.programId, {
        ...run.request,
        recipient: { email },
      })
      run.secondId = parseAnswer(GrantSchema, result.grant, 'The 201').id
      return `${run.secondId} to ${email}`
    },
  },
  { name: 'pool-held', run: () => expectPool(run, 1, 'grant-2 did not take its share') },
  {
    name: 'cancel',
    run: async () => {
      const grant = parseAnswer(
        GrantDetailSchema,
        await run.client.cancelGrant(run.programId, run.secondId),
        'The cancel',
      )
      if (grant.status !== 'canceled') fail(`the cancel left it ${grant.status}`)
      return `${run.secondId} canceled`
    },
  },
  { name: 'pool-back', run: () => expectPool(run, 0, 'the canceled share is not back') },
]

/** fetch, or the step's line: no answer from `url` and why (fetch's own message is "fetch failed"). */
const plainFetch = async (url: string, init: RequestInit, timeoutMs: number) => {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) })
  } catch (error) {
    const e = error as Error & { cause?: { message?: unknown } }
    const cause = typeof e.cause?.message === 'string' ? `: ${e.cause.message}` : ''
    return fail(`no answer from ${url}: ${e.message}${cause}`)
  }
}

const jsonOf = (text: string, what: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return fail(`${what} is not JSON: ${JSON.stringify(text.slice(0, 80))}`)
  }
}

/** A key the stage does not know (well formed, checksum right): 401 in problem+json. */
const wrongKeyStep = (run: Run): SmokeStep => ({
  name: 'wrong-key',
  run: async () => {
    const url = `${run.api}/programs/${encodeURIComponent(run.programId)}/grant-tokens`
    const response = await plainFetch(
      url,
      {
        method: 'POST',
        headers: { 'x-api-key': generateApiKey('TEST'), 'content-type': 'application/json' },
        body: JSON.stringify(run.request),
      },
      run.timeoutMs,
    )
    const type = response.headers.get('content-type') ?? ''
    const text = await response.text()
    if (response.status !== 401 || !type.startsWith('application/problem+json')) {
      fail(`an unknown key answered ${response.status} ${type}, not 401 application/problem+json`)
    }
    const problem = parseAnswer(ProblemSchema, jsonOf(text, 'The problem'), 'The problem')
    if (problem.code !== 'invalid_api_key') fail(`an unknown key's code is ${problem.code}`)
    return '401 application/problem+json, invalid_api_key'
  },
})

/** The console's config.json names this API. */
const consoleStep = (run: Run, consoleUrl: string): SmokeStep => ({
  name: 'console',
  run: async () => {
    const url = new URL('config.json', consoleBase(consoleUrl)).href
    const response = await plainFetch(url, {}, run.timeoutMs)
    if (response.status !== 200) fail(`${url} answered ${response.status}`)
    const config = parseAnswer(
      ConsoleConfigSchema,
      jsonOf(await response.text(), 'config.json'),
      'config.json',
    )
    if (sameUrl(config.grantApiUrl) !== sameUrl(run.api)) {
      fail(`config.json's grantApiUrl is ${config.grantApiUrl}, not --api ${run.api}`)
    }
    return `config.json's grantApiUrl is ${config.grantApiUrl}`
  },
})

/**
 * The steps of `npm run smoke`, in order. They change TEST data only: two grants of one share to
 * fresh `smoke+…@example.com` addresses, one accepted and one canceled.
 */
export const smokeSteps = (target: SmokeTarget): SmokeStep[] => {
  const email = smokeRecipient()
  const run: Run = {
    ...target,
    email,
    request: { recipient: { email }, reason: 'npm run smoke', amount: 1 },
    idempotencyKey: `smoke-${randomUUID()}`,
    first: {},
    grantId: '',
    issued: 0,
    remaining: null,
    secondId: '',
  }
  return [
    ...grantSteps(run),
    balanceStep(run),
    ...cancelSteps(run),
    wrongKeyStep(run),
    ...(target.consoleUrl === undefined ? [] : [consoleStep(run, target.consoleUrl)]),
  ]
}

/** The folder config.json is in: the console's URL (`…/app/`), or its origin's CONSOLE_PATH. */
export const consoleBase = (consoleUrl: string) => {
  const url = new URL(consoleUrl)
  if (url.pathname === '/') url.pathname = CONSOLE_PATH
  else if (!url.pathname.endsWith('/')) url.pathname += '/'
  return url.href
}
