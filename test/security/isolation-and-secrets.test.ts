import type { AddressInfo } from 'node:net'
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import type { Runtime } from '../../functions/composition'
import { generateApiKey, hashApiKey } from '../../functions/domain/api-key'
import { newId } from '../../functions/domain/ids'
import { createLocalApi, type LambdaHandler } from '../../local/http-server'
import {
  adminTables,
  type Call,
  countRoundTrips,
  createKey,
  freezeCheckClock,
  grantBody,
  type Issuer,
  newIssuer,
  postGrant,
  programState,
  request,
  revokeKey,
  scanAll,
  startApi,
} from '../support/api'
import { injectFaults } from '../support/fault-injector'
import { config, wallClock } from '../support/runtime'

let api: Awaited<ReturnType<typeof startApi>>
let a: Issuer
let b: Issuer
let bGrant: Call
beforeAll(async () => {
  api = await startApi()
  ;[a, b] = await Promise.all([newIssuer(), newIssuer()])
  bGrant = await postGrant(api.baseUrl, b.programs.TEST, b.keys.TEST)
})
afterAll(() => api.close())

const get = (path: string, key: string) =>
  request(api.baseUrl, 'GET', path, { headers: { 'x-api-key': key } })
/** The answer with everything that names the requested id or the request taken out. */
const shape = (call: Call) => ({
  status: call.status,
  type: call.body.type,
  title: call.body.title,
  code: call.body.code,
  detail: String(call.body.detail).replace(/(prg|gr)_\w+/g, 'ID'),
})

describe('tenant isolation', () => {
  it("answers issuer A's key on issuer B's program exactly as on a program that does not exist, writing nothing", async () => {
    for (const mode of ['TEST', 'LIVE'] as const) {
      const before = await programState(b.programs[mode])
      const foreign = await postGrant(api.baseUrl, b.programs[mode], a.keys[mode])
      const missing = await postGrant(api.baseUrl, newId('program'), a.keys[mode])
      expect(shape(foreign)).toEqual(shape(missing))
      expect(foreign.status).toBe(404)
      const after = await programState(b.programs[mode])
      expect([after.grants.length, after.issued]).toEqual([before.grants.length, before.issued])
    }
  })

  it("answers issuer A's key on issuer B's grant exactly as on a grant that does not exist", async () => {
    const path = bGrant.headers.get('location') as string
    const foreign = await get(path, a.keys.TEST)
    const missing = await get(`/programs/${b.programs.TEST}/grants/${newId('grant')}`, a.keys.TEST)
    const missingProgram = await get(
      `/programs/${newId('program')}/grants/${newId('grant')}`,
      a.keys.TEST,
    )
    expect(foreign.status).toBe(404)
    expect(shape(foreign)).toEqual(shape(missing))
    expect(shape(foreign)).toEqual(shape(missingProgram))
    // A's own program in the path does not help either.
    expect(
      shape(await get(`/programs/${a.programs.TEST}/grants/${bGrant.body.id}`, a.keys.TEST)),
    ).toEqual(shape(missing))
  })

  it("never replays issuer B's grant to issuer A through a shared Idempotency-Key", async () => {
    const key = `shared-${Math.random()}`
    const bCall = await postGrant(api.baseUrl, b.programs.LIVE, b.keys.LIVE, grantBody(), {
      'idempotency-key': key,
    })
    const aCall = await postGrant(api.baseUrl, a.programs.LIVE, a.keys.LIVE, grantBody(), {
      'idempotency-key': key,
    })
    expect([bCall.status, aCall.status]).toEqual([201, 201])
    expect(aCall.body.id).not.toBe(bCall.body.id)
    expect(aCall.headers.get('idempotent-replayed')).toBeNull()
  })
})

describe('keys', () => {
  it('refuses an expired key on the next request although it is cached', async () => {
    const key = await createKey({
      issuerId: a.issuerId,
      mode: 'TEST',
      expiresAt: Date.now() + 3_600_000,
    })
    // The access cache's clock stands still, so the key stays checked however slow the machine.
    const checks = freezeCheckClock()
    expect((await postGrant(api.baseUrl, a.programs.TEST, key.secret)).status).toBe(201)
    const created = await postGrant(api.baseUrl, a.programs.TEST, key.secret)
    const counter = countRoundTrips()
    try {
      // The functions' wall clock (the runtime's), two hours on: past the key's expiry.
      wallClock.advance(2 * 3_600_000)
      const refused = await postGrant(api.baseUrl, a.programs.TEST, key.secret)
      expect(refused.status).toBe(401)
      expect(refused.body.code).toBe('invalid_api_key')
      expect((await get(created.headers.get('location') as string, key.secret)).status).toBe(401)
      // The grant path compares the cached key's expiry with the clock: refused with no call; the
      // read's rate limit reads this key once (GetItem: its first request with it; expired, it
      // gets no limit), then the read checks the key afresh (one BatchGetItem).
      expect(counter.calls).toEqual(['GetItemCommand', 'BatchGetItemCommand'])
    } finally {
      wallClock.reset()
      counter.stop()
      checks.thaw()
    }
  })

  it('refuses a revoked key on GET too, on the very next request', async () => {
    const key = await createKey({ issuerId: a.issuerId, mode: 'LIVE' })
    const created = await postGrant(api.baseUrl, a.programs.LIVE, key.secret)
    await revokeKey(key.record.keyHash)
    expect((await get(created.headers.get('location') as string, key.secret)).status).toBe(401)
  })
})

describe('no secret leaks', () => {
  it('logs no API key or key hash, stores no plaintext key, and never echoes a key in an answer', async () => {
    const secrets: string[] = [...Object.values(a.keys), ...Object.values(b.keys)]
    const revoked = await createKey({ issuerId: a.issuerId, mode: 'TEST' })
    await revokeKey(revoked.record.keyHash)
    const expired = await createKey({
      issuerId: a.issuerId,
      mode: 'TEST',
      expiresAt: Date.now() - 1,
    })
    const unknown = generateApiKey('LIVE')
    const badChecksum = `${a.keys.TEST.slice(0, -1)}${a.keys.TEST.endsWith('0') ? '1' : '0'}`
    secrets.push(revoked.secret, expired.secret, unknown, badChecksum)

    // A second copy of the handlers, loaded with DEBUG logging (the rest of the suite runs
    // with logs off), behind its own local server.
    let isolated = {
      handlers: new Map<string, LambdaHandler>(),
      client: undefined as unknown as DynamoDBClient,
    }
    process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG'
    await jest.isolateModulesAsync(async () => {
      const runtime = require('../../functions/composition').buildRuntime(config) as Runtime
      isolated = {
        handlers: await require('../../local/http-server').loadRouteHandlers(runtime),
        client: runtime.dynamodb,
      }
    })
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT'
    const server = createLocalApi(isolated.handlers)
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const post = (programId: string, key: string, body?: unknown) =>
      postGrant(base, programId, key, body)
    const fetchGrant = (path: string, key: string) =>
      request(base, 'GET', path, { headers: { 'x-api-key': key } })

    const captured: string[] = []
    const original = { out: process.stdout.write, err: process.stderr.write }
    const capture = (stream: NodeJS.WriteStream) =>
      ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        captured.push(String(chunk))
        return (stream === process.stdout ? original.out : original.err).apply(stream, [
          chunk,
          ...rest,
        ] as never)
      }) as typeof process.stdout.write
    process.stdout.write = capture(process.stdout)
    process.stderr.write = capture(process.stderr)
    const answers: string[] = []
    try {
      const calls = [
        () => post(a.programs.TEST, a.keys.TEST),
        () => post(a.programs.LIVE, a.keys.TEST),
        () => post(b.programs.TEST, a.keys.TEST),
        () => post(a.programs.TEST, revoked.secret),
        () => post(a.programs.TEST, expired.secret),
        () => post(a.programs.TEST, unknown),
        () => post(a.programs.TEST, badChecksum),
        () =>
          post(a.programs.TEST, a.keys.TEST, {
            ...grantBody(),
            apiKey: a.keys.TEST,
          }),
        () => post(a.programs.TEST, a.keys.TEST, `{"x-api-key":"${a.keys.TEST}"`),
        () => post(a.programs.TEST, `${a.keys.TEST}, ${b.keys.TEST}`),
        () => fetchGrant(bGrant.headers.get('location') as string, b.keys.TEST),
        () => fetchGrant(bGrant.headers.get('location') as string, a.keys.TEST),
      ]
      for (const call of calls) answers.push((await call()).text)
      // Failures are logged too (an unexpected one in full, stack and all): still no key in them.
      const faults = injectFaults(isolated.client, {
        rate: 1,
        kinds: ['before', 'throttle', 'lost-response'],
      })
      try {
        for (let i = 0; i < 6; i++) answers.push((await post(a.programs.TEST, a.keys.TEST)).text)
      } finally {
        faults.stop()
      }
      isolated.client.middlewareStack.add(
        () => async () => {
          throw Object.assign(new Error('Unexpected failure'), { name: 'ValidationException' })
        },
        { step: 'initialize', name: 'unexpected-failure' },
      )
      const unexpected = await post(a.programs.TEST, a.keys.TEST)
      expect(unexpected.status).toBe(500)
      answers.push(unexpected.text)
    } finally {
      server.close()
      process.stdout.write = original.out
      process.stderr.write = original.err
    }

    const logs = captured.join('')
    expect(logs).toContain('"message":"request"')
    expect(logs).toContain('"message":"unhandled error"')
    for (const secret of secrets) {
      expect(logs).not.toContain(secret)
      expect(logs).not.toContain(secret.slice(8, 32)) // the random part alone
      expect(logs).not.toContain(hashApiKey(secret))
      for (const answer of answers) expect(answer).not.toContain(secret.slice(8, 32))
    }

    // The database holds hashes only.
    for (const table of Object.values(adminTables)) {
      const items = JSON.stringify(await scanAll({ TableName: table }))
      for (const secret of secrets) expect(items).not.toContain(secret.slice(8, 32))
    }
  })
})
