import type { APIGatewayProxyEventV2, Context } from 'aws-lambda'
import { makeProgramAccess } from '../../functions/core/get-program'
import { type ApiKeyRecord, generateApiKey, hashApiKey } from '../../functions/domain/api-key'
import { InvalidApiKey, ModeMismatch, ProgramNotFound } from '../../functions/domain/errors'
import { newId } from '../../functions/domain/ids'
import type { ProgramRecord } from '../../functions/domain/program'
import { integratorRoute, type KeyRequest } from '../../functions/http/routes/integrator-route'

const NOW = Date.parse('2026-01-01T00:00:00Z')
const context = { awsRequestId: 'unit', getRemainingTimeInMillis: () => 10_000 } as Context

const event = (headers: Record<string, string>, path: Record<string, string>) =>
  ({
    version: '2.0',
    routeKey: 'GET /programs/{programId}/grants/{grantId}',
    rawPath: '/programs/p/grants/g',
    rawQueryString: '',
    headers,
    pathParameters: path,
    requestContext: { requestId: 'unit', http: { method: 'GET', path: '/programs/p/grants/g' } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2

describe('integratorRoute (http/routes/integrator-route.ts)', () => {
  it('hands the use case the key, the path ids and a deadline; answers 200 with what `present` makes of it', async () => {
    const seen: KeyRequest[] = []
    const handler = integratorRoute(
      async (request: KeyRequest) => {
        seen.push(request)
        return { n: 2 }
      },
      (result) => ({ doubled: result.n * 2 }),
      { headers: { 'cache-control': 'no-store' } },
    )
    const answer = await handler(
      event({ 'X-Api-Key': 'k' }, { programId: 'p', grantId: 'g' }),
      context,
    )
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ apiKey: 'k', programId: 'p', grantId: 'g' })
    expect(seen[0]?.deadline.signal).toBeInstanceOf(AbortSignal)
    expect(answer).toMatchObject({
      statusCode: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    })
    expect(JSON.parse(answer.body as string)).toEqual({ doubled: 4 })
  })

  it("answers the use case's refusal as problem+json", async () => {
    const handler = integratorRoute(async () => {
      throw new InvalidApiKey()
    }, String)
    const answer = await handler(event({}, {}), context)
    expect(answer.statusCode).toBe(401)
    expect(answer.headers?.['content-type']).toBe('application/problem+json')
  })
})

describe('makeProgramAccess (core/get-program.ts)', () => {
  const secret = generateApiKey('TEST')
  const programId = newId('program')
  const key: ApiKeyRecord = {
    keyHash: hashApiKey(secret),
    keyId: newId('apiKey'),
    issuerId: 'issuer-1',
    mode: 'TEST',
    status: 'active',
    createdAt: new Date(NOW).toISOString(),
    prefix: 'vs_test_',
    last4: secret.slice(-4),
  }
  const program = {
    programId,
    issuerId: 'issuer-1',
    mode: 'TEST',
    name: 'P',
    status: 'active',
    issued: 0,
    createdAt: new Date(NOW).toISOString(),
  } as ProgramRecord
  const accessOver = (found: { key?: ApiKeyRecord; program?: ProgramRecord }) => {
    const calls: { keyHash: string; programId: string; totals: boolean | undefined }[] = []
    const access = makeProgramAccess({
      store: {
        findProgramWithKey: async (keyHash, id, options) => {
          calls.push({ keyHash, programId: id, totals: options?.totals })
          return { key: found.key, program: found.program }
        },
      },
      clock: () => NOW,
    })
    return { access, calls }
  }

  it('answers the key and its program, in one read that asks for the totals unless told not to', async () => {
    const { access, calls } = accessOver({ key, program })
    await expect(access({ apiKey: secret, programId })).resolves.toEqual({ key, program })
    await access({ apiKey: secret, programId }, () => {}, false)
    expect(calls).toEqual([
      { keyHash: key.keyHash, programId, totals: true },
      { keyHash: key.keyHash, programId, totals: false },
    ])
  })

  it('runs `checks` before any read, and refuses a malformed id without one', async () => {
    const { access, calls } = accessOver({ key, program })
    const refused = new Error('checked')
    await expect(
      access({ apiKey: secret, programId }, () => {
        throw refused
      }),
    ).rejects.toBe(refused)
    await expect(access({ apiKey: secret, programId: 'nope' })).rejects.toBeInstanceOf(
      ProgramNotFound,
    )
    expect(calls).toEqual([])
  })

  it("refuses a revoked key, hides another issuer's program, and tells a program of the other mode", async () => {
    const revoked = accessOver({ key: { ...key, status: 'revoked' }, program })
    await expect(revoked.access({ apiKey: secret, programId })).rejects.toBeInstanceOf(
      InvalidApiKey,
    )
    const other = accessOver({ key, program: { ...program, issuerId: 'issuer-2' } })
    await expect(other.access({ apiKey: secret, programId })).rejects.toBeInstanceOf(
      ProgramNotFound,
    )
    const live = accessOver({ key, program: { ...program, mode: 'LIVE' } })
    await expect(live.access({ apiKey: secret, programId })).rejects.toBeInstanceOf(ModeMismatch)
  })
})
