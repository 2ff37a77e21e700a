import { CHECK_BOUND_MS } from '../../functions/core/access-cache'
import { generateApiKey } from '../../functions/domain/api-key'
import { LIMITS } from '../../functions/domain/grant-request.schema'
import { newId } from '../../functions/domain/ids'
import {
  advanceCheckClock,
  type Call,
  createKey,
  expectNothingWritten,
  expectProblem,
  grantBody,
  type Issuer,
  newIssuer,
  postGrant,
  programState,
  request,
  revokeKey,
  setProgramStatus,
} from '../support/api'
import { useApi } from '../support/api-harness'

const api = useApi()
let issuer: Issuer
let other: Issuer

beforeAll(async () => {
  ;[issuer, other] = await Promise.all([newIssuer({ pool: 1_000 }), newIssuer()])
})

describe('POST /programs/{programId}/grant-tokens: success', () => {
  it('creates a grant: 201, Location, request id, normalised e-mail, stored once', async () => {
    const before = await programState(issuer.programs.TEST)
    const call = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST, {
      recipient: { email: '  Ann@Example.COM ', name: 'Ann' },
      reason: 'Referral bonus',
      amount: 3,
    })
    expect(call.status).toBe(201)
    expect(call.headers.get('content-type')).toBe('application/json')
    expect(call.headers.get('x-request-id')).toMatch(/\S{8,}/)
    expect(call.headers.get('idempotent-replayed')).toBeNull()
    expect(call.body).toEqual({
      id: expect.stringMatching(/^gr_[0-9a-z]{26}$/),
      object: 'grant',
      programId: issuer.programs.TEST,
      mode: 'TEST',
      recipient: { email: 'ann@example.com', name: 'Ann' },
      reason: 'Referral bonus',
      amount: 3,
      status: 'reserved',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      // The same grant a GET shows: its life so far (the offer window is the program's, 30 days).
      rejectionReason: null,
      expiresAt: new Date(Date.parse(String(call.body.createdAt)) + 30 * 86_400_000).toISOString(),
      delivery: 'pending',
      history: [],
    })
    const read = await fetch(`${api.baseUrl}${call.headers.get('location')}`, {
      headers: { 'x-api-key': issuer.keys.TEST },
    })
    expect(await read.json()).toEqual(call.body)
    expect(call.headers.get('location')).toBe(
      `/programs/${issuer.programs.TEST}/grants/${call.body.id}`,
    )
    const after = await programState(issuer.programs.TEST)
    expect(after.grants.length).toBe(before.grants.length + 1)
    expect(after.issued).toBe(before.issued + 3)
    expect(after.program?.remaining).toBe(1_000 - after.issued)
    const stored = after.grants.find((g) => g.grantId === call.body.id)
    expect(stored).toMatchObject({ issuerId: issuer.issuerId, keyId: issuer.keyRecords.TEST.keyId })
  })

  // Two public Python integrations written for the reference product send these exact bodies when
  // the name is unknown (a default argument, Python's None). They must keep working here.
  it.each([
    ['{"recipient":{"email":"ann@example.com","name":""},"reason":"Test","amount":1}'],
    ['{"recipient":{"email":"ann@example.com","name":null},"reason":"Test","amount":1}'],
  ])('accepts %s as a grant without a name', async (body) => {
    const before = await programState(issuer.programs.TEST)
    const call = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST, body)
    expect(call.status).toBe(201)
    expect(call.body.recipient).toEqual({ email: 'ann@example.com' })
    const after = await programState(issuer.programs.TEST)
    const stored = after.grants.find((g) => g.grantId === call.body.id)
    expect(stored?.recipient).toEqual({ email: 'ann@example.com' })
    expect(after.grants.length).toBe(before.grants.length + 1)
    const read = await request(api.baseUrl, 'GET', call.headers.get('location') as string, {
      headers: { 'x-api-key': issuer.keys.TEST },
    })
    expect(read.body.recipient).toEqual({ email: 'ann@example.com' })
  })

  it('returns the same grant from GET at its Location, with where it is in its life', async () => {
    const created = await postGrant(api.baseUrl, issuer.programs.LIVE, issuer.keys.LIVE)
    expect(created.status).toBe(201)
    const fetched = await request(api.baseUrl, 'GET', created.headers.get('location') as string, {
      headers: { 'x-api-key': issuer.keys.LIVE },
    })
    expect(fetched.status).toBe(200)
    // The 201's resource, and what the grant's life adds since (issue 19): nothing happened yet.
    expect(fetched.body).toEqual({
      ...created.body,
      rejectionReason: null,
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      delivery: 'pending',
      history: [],
    })
    expect(fetched.headers.get('x-request-id')).toBeTruthy()
  })

  it('without an Idempotency-Key, each call is a new grant', async () => {
    const before = await programState(issuer.programs.TEST)
    const a = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST)
    const b = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST)
    expect([a.status, b.status]).toEqual([201, 201])
    expect(a.body.id).not.toBe(b.body.id)
    expect((await programState(issuer.programs.TEST)).grants.length).toBe(before.grants.length + 2)
  })
})

describe('idempotency', () => {
  it('replays the original 201 and body for the same key and request, writing nothing', async () => {
    const key = `order-${Math.random()}`
    const first = await postGrant(
      api.baseUrl,
      issuer.programs.TEST,
      issuer.keys.TEST,
      grantBody({ amount: 2 }),
      {
        'idempotency-key': key,
      },
    )
    expect(first.status).toBe(201)
    await expectNothingWritten(issuer.programs.TEST, async () => {
      const again = await postGrant(
        api.baseUrl,
        issuer.programs.TEST,
        issuer.keys.TEST,
        // Same request after normalisation: the e-mail's case and spacing do not matter.
        grantBody({ amount: 2, recipient: { email: ' ANN@example.com' } }),
        { 'idempotency-key': key },
      )
      expect(again.status).toBe(201)
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(again.headers.get('location')).toBe(first.headers.get('location'))
      expect(again.body).toEqual(first.body)
    })
  })

  it('answers 422 idempotency_key_reused when the key comes back with a different request', async () => {
    const key = `order-${Math.random()}`
    const first = await postGrant(
      api.baseUrl,
      issuer.programs.TEST,
      issuer.keys.TEST,
      grantBody(),
      {
        'idempotency-key': key,
      },
    )
    expect(first.status).toBe(201)
    await expectNothingWritten(issuer.programs.TEST, async () => {
      for (const changed of [grantBody({ amount: 5 }), grantBody({ reason: 'Other' })]) {
        const reused = await postGrant(
          api.baseUrl,
          issuer.programs.TEST,
          issuer.keys.TEST,
          changed,
          {
            'idempotency-key': key,
          },
        )
        expectProblem(reused, 422, 'idempotency_key_reused')
      }
    })
  })

  it('scopes keys to the issuer and the mode', async () => {
    const key = `shared-${Math.random()}`
    const calls = await Promise.all([
      postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST, grantBody(), {
        'idempotency-key': key,
      }),
      postGrant(api.baseUrl, issuer.programs.LIVE, issuer.keys.LIVE, grantBody(), {
        'idempotency-key': key,
      }),
      postGrant(api.baseUrl, other.programs.TEST, other.keys.TEST, grantBody(), {
        'idempotency-key': key,
      }),
    ])
    expect(calls.map((c) => c.status)).toEqual([201, 201, 201])
    expect(new Set(calls.map((c) => c.body.id)).size).toBe(3)
    expect(calls.every((c) => c.headers.get('idempotent-replayed') === null)).toBe(true)
  })

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['non-ASCII', 'clé'],
  ])('rejects an Idempotency-Key that is %s with 400', async (_, key) => {
    await expectNothingWritten(issuer.programs.TEST, async () => {
      const call = await postGrant(
        api.baseUrl,
        issuer.programs.TEST,
        issuer.keys.TEST,
        grantBody(),
        {
          'idempotency-key': key,
        },
      )
      expectProblem(call, 400, 'invalid_idempotency_key')
    })
  })
})

describe('request validation', () => {
  it.each([
    [{ ...grantBody(), ammount: 1 }, ['ammount']],
    [grantBody({ amount: '1' }), ['amount']],
    [grantBody({ amount: 1.5 }), ['amount']],
    [grantBody({ amount: 0 }), ['amount']],
    [grantBody({ amount: -1 }), ['amount']],
    [grantBody({ amount: LIMITS.maxAmount + 1 }), ['amount']],
    [grantBody({ recipient: { email: 'nope' } }), ['recipient.email']],
    [grantBody({ reason: '' }), ['reason']],
    [grantBody({ reason: '\u200b' }), ['reason']],
    [grantBody({ recipient: { email: 'ann@example.com', name: 0 } }), ['recipient.name']],
    [grantBody({ recipient: { email: 'ann@example.com', name: ' ' } }), ['recipient.name']],
    [grantBody({ reason: 'bell\u0007' }), ['reason']],
    [grantBody({ reason: 'x'.repeat(LIMITS.maxReasonLength + 1) }), ['reason']],
    [{ recipient: 'ann@example.com', reason: 1 }, ['recipient', 'reason', 'amount']],
    [[], ['(body)']],
  ])('rejects %j with 400 naming %j, writing nothing', async (body, fields) => {
    await expectNothingWritten(issuer.programs.TEST, async () => {
      const call = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST, body)
      expectProblem(call, 400, 'validation_failed')
      const named = (call.body.errors as { field: string; message: string }[]).map((e) => e.field)
      expect(named.sort()).toEqual([...fields].sort())
      for (const field of fields) expect(call.body.detail).toContain(field)
    })
  })

  it('names an unknown field in its message', async () => {
    const call = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST, {
      ...grantBody(),
      ammount: 1,
    })
    expect(call.body.errors).toContainEqual({
      field: 'ammount',
      message: 'unknown field "ammount"',
    })
  })

  it.each([
    ['malformed JSON', '{"recipient":', 400, 'malformed_json'],
    ['an empty body', '', 400, 'malformed_json'],
    ['a byte-order mark', `\ufeff${JSON.stringify(grantBody())}`, 400, 'malformed_json'],
    ['a JSON string', '"grant"', 400, 'validation_failed'],
    ['trailing junk', `${JSON.stringify(grantBody())}x`, 400, 'malformed_json'],
  ])('answers %s with %s', async (_, body, status, code) => {
    await expectNothingWritten(issuer.programs.TEST, async () => {
      expectProblem(
        await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST, body),
        status,
        code,
      )
    })
  })

  it.each([
    ['text/plain'],
    ['application/x-www-form-urlencoded'],
    ['application/json; charset=latin1'],
  ])('answers Content-Type %s with 415', async (contentType) => {
    await expectNothingWritten(issuer.programs.TEST, async () => {
      const call = await postGrant(
        api.baseUrl,
        issuer.programs.TEST,
        issuer.keys.TEST,
        grantBody(),
        {
          'content-type': contentType,
        },
      )
      expectProblem(call, 415, 'unsupported_media_type')
    })
  })

  it.each([
    ['application/json; charset=UTF-8'],
    // @middy/http-json-body-parser's own pattern refuses these; the contract accepts them.
    ['application/json ; charset=utf-8'],
    ['Application/JSON'],
    ['application/vnd.api+json'],
  ])('accepts Content-Type %s', async (contentType) => {
    const call = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST, grantBody(), {
      'content-type': contentType,
    })
    expect(call.status).toBe(201)
  })

  it('answers a body over the size cap with 413', async () => {
    await expectNothingWritten(issuer.programs.TEST, async () => {
      const body = JSON.stringify(grantBody({ reason: 'x'.repeat(LIMITS.maxBodyBytes) }))
      expectProblem(
        await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST, body),
        413,
        'payload_too_large',
      )
    })
  })
})

describe('authentication', () => {
  it('answers a missing key with 401 missing_api_key', async () => {
    await expectNothingWritten(issuer.programs.TEST, async () => {
      expectProblem(
        await postGrant(api.baseUrl, issuer.programs.TEST, undefined),
        401,
        'missing_api_key',
      )
    })
  })

  it('answers malformed, unknown, revoked and expired keys with the same 401 body', async () => {
    const revoked = await createKey({ issuerId: issuer.issuerId, mode: 'TEST' })
    // Warm the key first: the revocation is seen once the cached check is CHECK_BOUND_MS old.
    expect((await postGrant(api.baseUrl, issuer.programs.TEST, revoked.secret)).status).toBe(201)
    await revokeKey(revoked.record.keyHash)
    advanceCheckClock(CHECK_BOUND_MS)
    const expired = await createKey({
      issuerId: issuer.issuerId,
      mode: 'TEST',
      expiresAt: Date.now() - 1_000,
    })
    const valid = issuer.keys.TEST
    const candidates = {
      badChecksum: `${valid.slice(0, -1)}${valid.endsWith('A') ? 'B' : 'A'}`,
      notAKey: 'hunter2',
      unknown: generateApiKey('TEST'),
      revoked: revoked.secret,
      expired: expired.secret,
      twoKeys: `${valid}, ${valid}`,
    }
    await expectNothingWritten(issuer.programs.TEST, async () => {
      const bodies = new Set<string>()
      for (const [, key] of Object.entries(candidates)) {
        const call = await postGrant(api.baseUrl, issuer.programs.TEST, key)
        expectProblem(call, 401, 'invalid_api_key')
        expect(call.text).not.toContain(key)
        const { requestId: _, ...rest } = call.body
        bodies.add(JSON.stringify(rest))
      }
      expect(bodies.size).toBe(1)
    })
  })

  it("answers another issuer's program exactly like a program that does not exist", async () => {
    const missing = newId('program')
    await expectNothingWritten(other.programs.TEST, async () => {
      const foreign = await postGrant(api.baseUrl, other.programs.TEST, issuer.keys.TEST)
      const absent = await postGrant(api.baseUrl, missing, issuer.keys.TEST)
      expectProblem(foreign, 404, 'program_not_found')
      expectProblem(absent, 404, 'program_not_found')
      const strip = (c: Call) => ({
        ...c.body,
        requestId: undefined,
        detail: (c.body.detail as string).replace(/prg_\w+/, 'ID'),
      })
      expect(strip(foreign)).toEqual(strip(absent))
    })
  })

  it('answers a malformed program id with 404', async () => {
    expectProblem(
      await postGrant(api.baseUrl, 'not-a-program', issuer.keys.TEST),
      404,
      'program_not_found',
    )
  })

  it.each([
    ['TEST', 'LIVE'],
    ['LIVE', 'TEST'],
  ] as const)(
    'answers a %s key on a %s program with 403 mode_mismatch naming the key to use',
    async (keyMode, programMode) => {
      await expectNothingWritten(issuer.programs[programMode], async () => {
        const call = await postGrant(
          api.baseUrl,
          issuer.programs[programMode],
          issuer.keys[keyMode],
        )
        expectProblem(call, 403, 'mode_mismatch')
        expect(call.body.detail).toContain(
          `Use a ${programMode} key (vs_${programMode.toLowerCase()}_`,
        )
      })
    },
  )
})

describe('program state', () => {
  it.each(['paused', 'closed'] as const)(
    'rejects grants to a %s program with 409 program_inactive',
    async (status) => {
      const own = await newIssuer()
      expect((await postGrant(api.baseUrl, own.programs.TEST, own.keys.TEST)).status).toBe(201)
      await setProgramStatus(own.programs.TEST, status)
      // Taken into account by every instance once its check of the program is a bound old.
      advanceCheckClock(CHECK_BOUND_MS)
      await expectNothingWritten(own.programs.TEST, async () => {
        const call = await postGrant(api.baseUrl, own.programs.TEST, own.keys.TEST)
        expectProblem(call, 409, 'program_inactive')
        expect(call.body.detail).toContain(status)
      })
      await setProgramStatus(own.programs.TEST, 'active')
      advanceCheckClock(CHECK_BOUND_MS)
      expect((await postGrant(api.baseUrl, own.programs.TEST, own.keys.TEST)).status).toBe(201)
    },
  )

  it('rejects a grant that would take issued above the pool with 409 pool_exhausted', async () => {
    const own = await newIssuer({ pool: 5 })
    expect(
      (await postGrant(api.baseUrl, own.programs.TEST, own.keys.TEST, grantBody({ amount: 4 })))
        .status,
    ).toBe(201)
    await expectNothingWritten(own.programs.TEST, async () => {
      const call = await postGrant(
        api.baseUrl,
        own.programs.TEST,
        own.keys.TEST,
        grantBody({ amount: 2 }),
      )
      expectProblem(call, 409, 'pool_exhausted')
      expect(call.body.detail).toContain('1 shares left')
    })
    expect(
      (await postGrant(api.baseUrl, own.programs.TEST, own.keys.TEST, grantBody({ amount: 1 })))
        .status,
    ).toBe(201)
    const state = await programState(own.programs.TEST)
    expect(state.issued).toBe(5)
    expectProblem(
      await postGrant(api.baseUrl, own.programs.TEST, own.keys.TEST),
      409,
      'pool_exhausted',
    )
  })
})

describe('GET /programs/{programId}/grants/{grantId}', () => {
  let grant: Call
  beforeAll(async () => {
    grant = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST)
  })
  const get = (programId: string, grantId: string, key?: string) =>
    request(api.baseUrl, 'GET', `/programs/${programId}/grants/${grantId}`, {
      headers: key === undefined ? {} : { 'x-api-key': key },
    })

  it('answers 401 without a key and for an unknown key', async () => {
    expectProblem(await get(issuer.programs.TEST, grant.body.id as string), 401, 'missing_api_key')
    expectProblem(
      await get(issuer.programs.TEST, grant.body.id as string, generateApiKey('TEST')),
      401,
      'invalid_api_key',
    )
  })

  it("answers another issuer's grant, another program's path and unknown ids alike: 404", async () => {
    const id = grant.body.id as string
    expectProblem(await get(issuer.programs.TEST, id, other.keys.TEST), 404, 'grant_not_found')
    expectProblem(await get(issuer.programs.LIVE, id, issuer.keys.TEST), 404, 'grant_not_found')
    expectProblem(
      await get(issuer.programs.TEST, newId('grant'), issuer.keys.TEST),
      404,
      'grant_not_found',
    )
    expectProblem(
      await get(issuer.programs.TEST, 'gr_nope', issuer.keys.TEST),
      404,
      'grant_not_found',
    )
  })

  it('answers a key of the other mode with 403 mode_mismatch', async () => {
    expectProblem(
      await get(issuer.programs.TEST, grant.body.id as string, issuer.keys.LIVE),
      403,
      'mode_mismatch',
    )
  })
})

describe('routing', () => {
  it('answers unknown routes with a problem+json 404, and another method on a known path with 405 + Allow', async () => {
    expectProblem(await request(api.baseUrl, 'GET', '/nowhere'), 404, 'route_not_found')
    const wrongMethod = await request(
      api.baseUrl,
      'DELETE',
      `/programs/${issuer.programs.TEST}/grant-tokens`,
    )
    expectProblem(wrongMethod, 405, 'method_not_allowed')
    expect(wrongMethod.headers.get('allow')).toBe('POST')
  })
})
