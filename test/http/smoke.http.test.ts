import { randomUUID } from 'node:crypto'
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda'
import { type Issuer, newIssuer } from '../support/api'
import { useApi } from '../support/api-harness'
import { runSmokeHere } from '../support/smoke-run'

/**
 * `npm run smoke` catches a stage that answers wrong: the local server in process, with one
 * route's answer changed per case (the `wrap` of test/support/api.ts), must make the smoke stop at
 * that step with its line, every step before it passed. A run against `npm start` itself, and a
 * stopped server, are test/local/npm-start.test.ts's.
 */
type Result = APIGatewayProxyStructuredResultV2
type Tamper = {
  before?: (route: string, event: APIGatewayProxyEventV2) => void
  after?: (route: string, result: Result) => Result
}
let tamper: Tamper = {}

const api = useApi({
  wrap: (route, handler) => async (event, context) => {
    tamper.before?.(route, event)
    const result = await handler(event, context)
    return tamper.after?.(route, result) ?? result
  },
})

let issuer: Issuer
beforeAll(async () => {
  issuer = await newIssuer()
})
afterEach(() => {
  tamper = {}
})

const GRANT = 'POST /programs/{programId}/grant-tokens'
const PROGRAM = 'GET /programs/{programId}'
const body = (result: Result) => JSON.parse(result.body as string) as Record<string, number>
const withBody = (result: Result, change: Record<string, unknown>): Result => ({
  ...result,
  body: JSON.stringify({ ...body(result), ...change }),
})

/** The n-th call of `route` (1-based), counted from the case's start. */
const nth = () => {
  const calls = new Map<string, number>()
  return (route: string) => {
    calls.set(route, (calls.get(route) ?? 0) + 1)
    return calls.get(route) as number
  }
}

const smoke = () =>
  runSmokeHere([
    ...['--api', api.baseUrl, '--key', issuer.keys.TEST, '--program', issuer.programs.TEST],
  ])

/** The steps that passed, and the failed step's line without its latency. */
const outcome = (result: Awaited<ReturnType<typeof smoke>>) => ({
  code: result.code,
  passed: [...result.stdout.matchAll(/^ok +(\S+) /gm)].map((m) => m[1]),
  failed: result.stderr.replace(/^FAIL {2}(\S+) +\d+ ms {2}/, '$1: '),
})

const STEPS = ['grant', 'replay', 'read', 'accept', 'history', 'balance', 'pool', 'grant-2']
const upTo = (step: string) => STEPS.slice(0, STEPS.indexOf(step))

describe('npm run smoke against the local server', () => {
  it('passes as it is', async () => {
    const result = await smoke()
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' })
    expect(outcome(result).passed).toEqual([
      ...STEPS,
      ...['pool-held', 'cancel', 'pool-back', 'wrong-key'],
    ])
  })

  it("stops at a 201 that is not the contract's", async () => {
    tamper = { after: (route, r) => (route === GRANT ? withBody(r, { amount: '1' }) : r) }
    expect(outcome(await smoke())).toEqual({
      code: 2,
      passed: [],
      failed: expect.stringMatching(/^grant: The 201 does not match the contract: amount: .+\n$/),
    })
  })

  it('stops at a replay answered as a new request', async () => {
    tamper = {
      after: (route, r) => {
        if (route !== GRANT) return r
        const { 'idempotent-replayed': _, ...headers } = r.headers ?? {}
        return { ...r, headers }
      },
    }
    expect(outcome(await smoke())).toEqual({
      code: 2,
      passed: upTo('replay'),
      failed: 'replay: the same Idempotency-Key was not answered as a replay\n',
    })
  })

  it('stops at a replay that grants again', async () => {
    const count = nth()
    let replay = false
    tamper = {
      before: (route, event) => {
        // The second request is the replay: sent on as a new key, answered as a replay.
        replay = route === GRANT && count(route) === 2
        if (replay) event.headers['idempotency-key'] = randomUUID()
      },
      after: (_, r) =>
        replay ? { ...r, headers: { ...r.headers, 'idempotent-replayed': 'true' } } : r,
    }
    expect(outcome(await smoke())).toEqual({
      code: 2,
      passed: upTo('replay'),
      failed: expect.stringMatching(
        /^replay: the same Idempotency-Key answered gr_\w{26}, not the first answer\n$/,
      ),
    })
  })

  it('stops at a TEST move that fails, with its status, code and request', async () => {
    tamper = {
      after: (route, r) =>
        route.endsWith('/test-transition')
          ? {
              statusCode: 503,
              headers: { 'content-type': 'application/problem+json', 'retry-after': '1' },
              body: JSON.stringify({
                code: 'service_unavailable',
                detail: 'Try again.',
                requestId: 'req-1',
              }),
            }
          : r,
    }
    expect(outcome(await smoke())).toEqual({
      code: 2,
      passed: upTo('accept'),
      failed: 'accept: 503 service_unavailable: Try again. (request req-1)\n',
    })
  })

  it('stops at a balance that counts the grant twice', async () => {
    tamper = {
      after: (route, r) =>
        route.endsWith('/balance') ? withBody(r, { grantCount: 2, tokenAmount: 2 }) : r,
    }
    expect(outcome(await smoke())).toEqual({
      code: 2,
      passed: upTo('balance'),
      failed:
        'balance: expected {"tokenAmount":1,"accepted":1,"pending":0,"grantCount":1,"participationStatus":"accepted"}, got {"tokenAmount":2,"accepted":1,"pending":0,"grantCount":2,"participationStatus":"accepted"}\n',
    })
  })

  it('stops when the canceled share is not back in the pool', async () => {
    const count = nth()
    tamper = {
      // The third read of the program is after the cancel: as if the share stayed issued.
      after: (route, r) =>
        route === PROGRAM && count(route) === 3
          ? withBody(r, { issued: Number(body(r).issued) + 1 })
          : r,
    }
    const result = outcome(await smoke())
    expect(result).toEqual({
      code: 2,
      passed: [...STEPS, 'pool-held', 'cancel'],
      failed: expect.stringMatching(
        /^pool-back: the canceled share is not back: issued (\d+) and remaining null, expected (\d+) and null \(or another client granted on this program meanwhile\)\n$/,
      ),
    })
  })

  it('stops at a wrong key answered without problem+json', async () => {
    tamper = {
      after: (route, r) =>
        route === GRANT && r.statusCode === 401
          ? { ...r, headers: { ...r.headers, 'content-type': 'application/json' } }
          : r,
    }
    expect(outcome(await smoke())).toEqual({
      code: 2,
      passed: [...STEPS, 'pool-held', 'cancel', 'pool-back'],
      failed:
        'wrong-key: an unknown key answered 401 application/json, not 401 application/problem+json\n',
    })
  })
})
