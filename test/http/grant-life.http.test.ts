import { CHECK_BOUND_MS } from '../../functions/core/access-cache'
import { makeGrantLife } from '../../functions/core/grant-life'
import { allLeasesSettled } from '../../functions/core/rate-limiter'
import { GRANT_STATES } from '../../functions/domain/grant-lifecycle'
import { newId } from '../../functions/domain/ids'
import { logger } from '../../functions/runtime/logger'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import { declaredAccess, recordAccess } from '../manage/grants-support'
import {
  adminTables,
  advanceCheckClock,
  type Call,
  countRoundTrips,
  expectProblem,
  grantBody,
  type Issuer,
  newIssuer,
  postGrant,
  programState,
  request,
  setProgramStatus,
} from '../support/api'
import { useApi } from '../support/api-harness'
import { contractCheck } from '../support/contract-check'
import { documentClient, dynamodb, wallClock } from '../support/runtime'

/**
 * A grant's life through the integrator API, over real HTTP to the local server and DynamoDB
 * Local: cancel (idempotent, 409 once accepted, isolation), the TEST-only move, the listing's
 * state filter, a recipient's balance in the reference product's shape, the program's
 * compatible fields, and the contract (openapi.json) against every answer.
 */
const api = useApi()
let a: Issuer
let b: Issuer
beforeAll(async () => {
  ;[a, b] = await Promise.all([newIssuer({ pool: 100 }), newIssuer({ pool: 100 })])
})

const call = (method: string, path: string, key?: string, body?: unknown) =>
  request(api.baseUrl, method, path, {
    headers: {
      ...(key === undefined ? {} : { 'x-api-key': key }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  })
const grantPath = (programId: string, grantId: string) => `/programs/${programId}/grants/${grantId}`
const cancel = (programId: string, grantId: string, key?: string) =>
  call('POST', `${grantPath(programId, grantId)}/cancel`, key)
const move = (programId: string, grantId: string, key: string | undefined, body: unknown) =>
  call('POST', `${grantPath(programId, grantId)}/test-transition`, key, body)
const balance = (programId: string, email: string, key?: string) =>
  call('GET', `/programs/${programId}/recipients/${encodeURIComponent(email)}/balance`, key)

/** A fresh grant of issuer `i` in `mode`; its id. */
const grant = async (i: Issuer, mode: 'TEST' | 'LIVE', overrides: Record<string, unknown> = {}) => {
  const made = await postGrant(api.baseUrl, i.programs[mode], i.keys[mode], grantBody(overrides))
  expect(made.status).toBe(201)
  return made.body.id as string
}

/** Runs `act` and asserts the program's grants (every attribute) and counters did not move. */
const expectUnchanged = async (programId: string, act: () => Promise<void>) => {
  const before = await programState(programId)
  await act()
  const after = await programState(programId)
  const byId = (s: typeof before) =>
    Object.fromEntries(s.grants.map((g) => [g.grantId, JSON.stringify(g)]))
  expect(byId(after)).toEqual(byId(before))
  expect(after.issued).toBe(before.issued)
  expect(after.program?.remaining).toBe(before.program?.remaining)
}

describe('POST /programs/{programId}/grants/{grantId}/cancel', () => {
  it('cancels a reserved grant: its shares back, the history says which key, then idempotent', async () => {
    const id = await grant(a, 'LIVE', { amount: 4 })
    const before = await programState(a.programs.LIVE)
    const first = await cancel(a.programs.LIVE, id, a.keys.LIVE)
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({
      id,
      object: 'grant',
      status: 'canceled',
      rejectionReason: null,
      amount: 4,
      delivery: 'pending',
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      history: [
        {
          event: 'transition',
          state: 'canceled',
          actor: `key:${a.keyRecords.LIVE.keyId}`,
          at: expect.any(String),
        },
      ],
    })
    const after = await programState(a.programs.LIVE)
    expect(after.issued).toBe(before.issued - 4)
    expect(after.program?.remaining).toBe((before.program?.remaining as number) + 4)
    expect(after.grants.find((g) => g.grantId === id)?.status).toBe('canceled')

    // Again: the same answer, and nothing written (no second history line, no second return).
    await expectUnchanged(a.programs.LIVE, async () => {
      const again = await cancel(a.programs.LIVE, id, a.keys.LIVE)
      expect(again.status).toBe(200)
      expect(again.body).toEqual(first.body)
    })
    // The GET shows the same grant.
    const read = await call('GET', grantPath(a.programs.LIVE, id), a.keys.LIVE)
    expect(read.body).toEqual(first.body)
  })

  it('is 409 grant_accepted once the grant is accepted, and writes nothing', async () => {
    const id = await grant(a, 'TEST', { amount: 2 })
    expect((await move(a.programs.TEST, id, a.keys.TEST, { to: 'accepted' })).status).toBe(200)
    await expectUnchanged(a.programs.TEST, async () => {
      expectProblem(await cancel(a.programs.TEST, id, a.keys.TEST), 409, 'grant_accepted')
    })
  })

  it('is 409 grant_state_conflict for a rejected or expired grant, and writes nothing', async () => {
    for (const to of ['rejected', 'expired'] as const) {
      const id = await grant(a, 'TEST')
      expect((await move(a.programs.TEST, id, a.keys.TEST, { to })).body.status).toBe(to)
      await expectUnchanged(a.programs.TEST, async () => {
        expectProblem(await cancel(a.programs.TEST, id, a.keys.TEST), 409, 'grant_state_conflict')
      })
    }
  })

  it("answers another issuer's grant, another program's and a missing one alike: 404, nothing written", async () => {
    const id = await grant(a, 'TEST')
    await expectUnchanged(a.programs.TEST, async () => {
      // The other issuer's key on its own program, with our grant's id.
      const foreign = await cancel(b.programs.TEST, id, b.keys.TEST)
      expectProblem(foreign, 404, 'grant_not_found')
      const missing = await cancel(b.programs.TEST, newId('grant'), b.keys.TEST)
      expectProblem(missing, 404, 'grant_not_found')
      expect(String(foreign.body.detail).replace(/gr_\w+/, 'ID')).toBe(
        String(missing.body.detail).replace(/gr_\w+/, 'ID'),
      )
      expectProblem(await cancel(a.programs.TEST, 'gr_nope', a.keys.TEST), 404, 'grant_not_found')
      // Our program with their key: the program is not theirs.
      expectProblem(await cancel(a.programs.TEST, id, b.keys.TEST), 404, 'program_not_found')
      // Our grant under our other program (LIVE, with the LIVE key): not that program's.
      expectProblem(await cancel(a.programs.LIVE, id, a.keys.LIVE), 404, 'grant_not_found')
      expectProblem(await cancel(a.programs.TEST, id, a.keys.LIVE), 403, 'mode_mismatch')
      expectProblem(await cancel(a.programs.TEST, id), 401, 'missing_api_key')
      expectProblem(await cancel(a.programs.TEST, id, 'vs_test_nope'), 401, 'invalid_api_key')
    })
  })

  it('costs exactly its declared IAM', async () => {
    const id = await grant(a, 'LIVE')
    // The key's check for its rate limit due (a GetItem), its lease awaited (a rate bucket write).
    advanceCheckClock(CHECK_BOUND_MS)
    const access = recordAccess(dynamodb)
    try {
      expect((await cancel(a.programs.LIVE, id, a.keys.LIVE)).status).toBe(200)
      await allLeasesSettled()
    } finally {
      access.stop()
    }
    // programs BatchGetItem: the key and the program's head (a grant from before draws were
    // recorded would also read the shards with it).
    expect([...access.seen].sort()).toEqual([...declaredAccess('CancelGrantByKey')].sort())
  })
})

describe('POST /programs/{programId}/grants/{grantId}/test-transition', () => {
  it('moves a TEST grant through the legal steps, each on its history as simulation', async () => {
    const id = await grant(a, 'TEST', { amount: 3 })
    const moved = await move(a.programs.TEST, id, a.keys.TEST, { to: 'accepted' })
    expect(moved.status).toBe(200)
    expect(moved.body).toMatchObject({ id, status: 'accepted', rejectionReason: null })
    expect(
      (moved.body.history as { state: string; actor: string }[]).map((h) => [h.state, h.actor]),
    ).toEqual([
      ['offered', 'simulation'],
      ['accepted', 'simulation'],
    ])
    // Where it is already: the same grant, nothing written.
    await expectUnchanged(a.programs.TEST, async () => {
      const again = await move(a.programs.TEST, id, a.keys.TEST, { to: 'accepted' })
      expect(again.body).toEqual(moved.body)
    })
  })

  it('rejects with a reason, and gives the shares back', async () => {
    const id = await grant(a, 'TEST', { amount: 5 })
    const before = await programState(a.programs.TEST)
    const moved = await move(a.programs.TEST, id, a.keys.TEST, {
      to: 'rejected',
      reason: 'ineligible_country',
    })
    expect(moved.body).toMatchObject({ status: 'rejected', rejectionReason: 'ineligible_country' })
    expect((await programState(a.programs.TEST)).issued).toBe(before.issued - 5)
  })

  it('is refused on LIVE (409 test_mode_only) and writes nothing', async () => {
    const id = await grant(a, 'LIVE')
    await expectUnchanged(a.programs.LIVE, async () => {
      const refused = await move(a.programs.LIVE, id, a.keys.LIVE, { to: 'accepted' })
      expectProblem(refused, 409, 'test_mode_only')
      // A TEST key on the LIVE program: the mode is wrong before anything else.
      expectProblem(
        await move(a.programs.LIVE, id, a.keys.TEST, { to: 'accepted' }),
        403,
        'mode_mismatch',
      )
    })
  })

  it.each([
    [{ to: 'bogus' }, 'to'],
    [{}, 'to'],
    [{ to: 'offered', reason: 'declined' }, 'reason'],
    [{ to: 'rejected', reason: 'tired' }, 'reason'],
    [{ to: 'accepted', extra: 1 }, 'extra'],
  ])('refuses the body %j naming %s (400), writing nothing', async (body, field) => {
    const id = await grant(a, 'TEST')
    await expectUnchanged(a.programs.TEST, async () => {
      const refused = await move(a.programs.TEST, id, a.keys.TEST, body)
      expectProblem(refused, 400, 'validation_failed')
      expect((refused.body.errors as { field: string }[]).map((e) => e.field)).toEqual([field])
    })
  })

  it('answers a body that is not JSON with the transport errors', async () => {
    const id = await grant(a, 'TEST')
    expectProblem(await move(a.programs.TEST, id, a.keys.TEST, '{'), 400, 'malformed_json')
    const text = await request(
      api.baseUrl,
      'POST',
      `${grantPath(a.programs.TEST, id)}/test-transition`,
      {
        headers: { 'x-api-key': a.keys.TEST, 'content-type': 'text/plain' },
        body: 'accepted',
      },
    )
    expectProblem(text, 415, 'unsupported_media_type')
  })
})

describe('GET /programs/{programId}/grants?status=', () => {
  it('lists only grants in that state, with their state fields', async () => {
    const i = await newIssuer({ pool: 100 })
    const ids = [await grant(i, 'TEST'), await grant(i, 'TEST'), await grant(i, 'TEST')]
    await move(i.programs.TEST, ids[0] as string, i.keys.TEST, { to: 'rejected' })
    await cancel(i.programs.TEST, ids[2] as string, i.keys.TEST)
    const list = async (query: string) =>
      (await call('GET', `/programs/${i.programs.TEST}/grants${query}`, i.keys.TEST)).body
    expect(((await list('?status=canceled')).data as { id: string }[]).map((g) => g.id)).toEqual([
      ids[2],
    ])
    const rejected = (await list('?status=rejected')).data as Record<string, unknown>[]
    expect(rejected).toEqual([
      expect.objectContaining({ id: ids[0], status: 'rejected', rejectionReason: 'declined' }),
    ])
    expect(rejected[0]).not.toHaveProperty('history')
    expect(((await list('?status=reserved')).data as { id: string }[]).map((g) => g.id)).toEqual([
      ids[1],
    ])
    expect((await list('?status=accepted')).data).toEqual([])
    // With the recipient filter too.
    expect(
      ((await list('?status=reserved&recipient=ann@example.com')).data as unknown[]).length,
    ).toBe(1)
    expect((await list('')).data).toHaveLength(3)
  })

  it('refuses a state that does not exist, before any read', async () => {
    const trips = countRoundTrips()
    try {
      for (const value of ['bogus', 'Canceled', 'reserved,offered']) {
        const refused = await call(
          'GET',
          `/programs/${a.programs.TEST}/grants?status=${encodeURIComponent(value)}`,
          a.keys.TEST,
        )
        expectProblem(refused, 400, 'validation_failed')
        expect(refused.body.errors).toEqual([
          { field: 'status', message: `status must be one of ${GRANT_STATES.join(', ')}` },
        ])
      }
      // Nothing the route reads; only its key's rate limit may check the key (GetItem, at most
      // once a second per instance: http/integrator-request.ts).
      expect(trips.calls.filter((c) => c !== 'GetItemCommand')).toEqual([])
      expect(trips.calls.length).toBeLessThanOrEqual(3)
    } finally {
      trips.stop()
    }
  })
})

describe('GET /programs/{programId}/recipients/{email}/balance', () => {
  it("answers the reference product's shape for an accepted grant, with our own fields", async () => {
    const i = await newIssuer({ pool: 100 })
    const email = 'ann.smith+x@example.com'
    const recipient = { email, name: 'Ann Marie Smith' }
    const accepted = await grant(i, 'TEST', { recipient, amount: 3 })
    await grant(i, 'TEST', { recipient, amount: 2 })
    const canceled = await grant(i, 'TEST', { recipient, amount: 7 })
    await grant(i, 'TEST', { recipient: { email: 'bob@example.com' }, amount: 11 })
    expect((await move(i.programs.TEST, accepted, i.keys.TEST, { to: 'accepted' })).status).toBe(
      200,
    )
    expect((await cancel(i.programs.TEST, canceled, i.keys.TEST)).status).toBe(200)

    // The address URL-encoded, in any case: normalised as recipient.email is.
    const answer = await balance(i.programs.TEST, '  Ann.Smith+X@Example.com', i.keys.TEST)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('cache-control')).toBe('no-store')
    expect(answer.body).toEqual({
      object: 'balance',
      type: 'person',
      programId: i.programs.TEST,
      person: {
        // The TEST move identifies with the grant's name: split at the last space.
        firstName: 'Ann Marie',
        lastName: 'Smith',
        email,
        dateOfBirth: null,
        addressCountryCode: null,
      },
      tokenAmount: 3,
      participationStatus: 'accepted',
      accepted: 3,
      pending: 2,
      grantCount: 3,
      // No value of a share set (test/http/program-value-reads.http.test.ts sets one).
      tokenValue: null,
      tokenValueCurrency: null,
      tokenValueCalculatedDate: null,
      acceptedValue: null,
    })
  })

  it('answers an address without grants with zeros, and keeps issuers and modes apart', async () => {
    const i = await newIssuer({ pool: 100 })
    await grant(i, 'LIVE', { recipient: { email: 'cy@example.com', name: 'Cy' }, amount: 4 })
    expect((await balance(i.programs.TEST, 'cy@example.com', i.keys.TEST)).body).toMatchObject({
      person: { firstName: null, lastName: null, email: 'cy@example.com' },
      tokenAmount: 0,
      pending: 0,
      participationStatus: 'none',
      grantCount: 0,
    })
    expect((await balance(i.programs.LIVE, 'cy@example.com', i.keys.LIVE)).body).toMatchObject({
      person: { firstName: 'Cy', lastName: null },
      tokenAmount: 0,
      pending: 4,
      participationStatus: 'reserved',
      grantCount: 1,
    })
    expectProblem(
      await balance(i.programs.LIVE, 'cy@example.com', b.keys.LIVE),
      404,
      'program_not_found',
    )
    expectProblem(
      await balance(i.programs.LIVE, 'cy@example.com', i.keys.TEST),
      403,
      'mode_mismatch',
    )
  })

  it('counts every grant of the address in the program, however many (230 here: three BatchGetItem calls of at most 100), and none elsewhere', async () => {
    const i = await newIssuer({ pool: 1_000 })
    const email = 'many@example.com'
    /** `n` grants of `amount`, 20 requests at a time; their ids. */
    const grants = async (n: number, mode: 'TEST' | 'LIVE', amount: number, to = email) => {
      const ids: string[] = []
      for (let start = 0; start < n; start += 20) {
        const made = await Promise.all(
          Array.from({ length: Math.min(20, n - start) }, () =>
            grant(i, mode, { recipient: { email: to }, amount }),
          ),
        )
        ids.push(...made)
      }
      return ids
    }
    const [mine] = await Promise.all([
      grants(230, 'TEST', 1),
      // The same address in the issuer's other mode, and another address: not counted.
      grants(5, 'LIVE', 1),
      grants(5, 'TEST', 3, 'someone.else@example.com'),
    ])
    // One of them accepted: 1 accepted, 229 pending.
    expect(
      (await move(i.programs.TEST, mine[0] as string, i.keys.TEST, { to: 'accepted' })).status,
    ).toBe(200)
    expect((await balance(i.programs.TEST, email, i.keys.TEST)).body).toMatchObject({
      tokenAmount: 1,
      accepted: 1,
      pending: 229,
      grantCount: 230,
    })
  })

  it('refuses an address that is not one (400 naming email), before any read', async () => {
    const trips = countRoundTrips()
    try {
      const refused = await balance(a.programs.TEST, 'not-an-address', a.keys.TEST)
      expectProblem(refused, 400, 'validation_failed')
      expect(refused.body.errors).toEqual([
        { field: 'email', message: 'email must be a valid e-mail address' },
      ])
      // Nothing the route reads; only its key's rate limit may check the key (GetItem, at most
      // once a second per instance: http/integrator-request.ts).
      expect(trips.calls.filter((c) => c !== 'GetItemCommand')).toEqual([])
      expect(trips.calls.length).toBeLessThanOrEqual(1)
    } finally {
      trips.stop()
    }
  })

  it("logs the route key, never the path with the recipient's address (success and refusal)", async () => {
    // What the function hands its logger, whatever level the test run prints at.
    const calls: unknown[][] = []
    const spies = (['debug', 'info', 'warn', 'error'] as const).map((level) =>
      jest.spyOn(logger, level).mockImplementation((...args: unknown[]) => {
        calls.push([level, ...args])
      }),
    )
    const email = 'secret.person@example.com'
    try {
      expect((await balance(a.programs.TEST, email, a.keys.TEST)).status).toBe(200)
      expect((await balance(a.programs.TEST, email, b.keys.TEST)).status).toBe(404)
    } finally {
      for (const spy of spies) spy.mockRestore()
    }
    // The request log's entries (runtime/request-log-sink.ts) carry the route key too.
    const entries = calls.filter((c) => c[1] === 'request' && 'requestLog' in (c[2] as object))
    expect(
      entries.map((c) => (c[2] as { requestLog: { route: string; status: number } }).requestLog),
    ).toEqual([
      expect.objectContaining({
        route: 'GET /programs/{programId}/recipients/{email}/balance',
        status: 200,
      }),
      // The other issuer's key is a key: its request is in its issuer's log.
      expect.objectContaining({
        route: 'GET /programs/{programId}/recipients/{email}/balance',
        status: 404,
        code: 'program_not_found',
      }),
    ])
    // One line a request: the entry's, never a second plain `request` line beside it.
    expect(calls.filter((c) => c[1] === 'request' && !entries.includes(c))).toEqual([])
    expect(JSON.stringify(calls)).not.toMatch(/secret\.person|secret%2Eperson/i)
  })

  it('costs exactly its declared IAM', async () => {
    const id = await grant(a, 'TEST', { recipient: { email: 'iam@example.com' } })
    expect(id).toMatch(/^gr_/)
    advanceCheckClock(CHECK_BOUND_MS)
    const access = recordAccess(dynamodb)
    try {
      expect((await balance(a.programs.TEST, 'iam@example.com', a.keys.TEST)).status).toBe(200)
      await allLeasesSettled()
    } finally {
      access.stop()
    }
    expect([...access.seen].sort()).toEqual([...declaredAccess('RecipientBalanceByKey')].sort())
  })
})

describe('GET /programs/{programId}: the fields a client of the reference product reads', () => {
  it('has tokensCount (= issued) and active (= status is active)', async () => {
    const i = await newIssuer({ pool: 50 })
    await grant(i, 'TEST', { amount: 6 })
    const read = async () => (await call('GET', `/programs/${i.programs.TEST}`, i.keys.TEST)).body
    expect(await read()).toMatchObject({
      name: 'test program',
      status: 'active',
      active: true,
      issued: 6,
      tokensCount: 6,
    })
    await setProgramStatus(i.programs.TEST, 'paused')
    expect(await read()).toMatchObject({ status: 'paused', active: false, tokensCount: 6 })
    await setProgramStatus(i.programs.TEST, 'closed')
    expect(await read()).toMatchObject({ status: 'closed', active: false })
  })
})

describe("GET /programs/{programId}/grants/{grantId}: the grant's life", () => {
  it('shows the history, a member of the issuer as `person`, never their address', async () => {
    const id = await grant(a, 'LIVE', { amount: 1 })
    const life = makeGrantLife({
      store: new DynamoDbGrantLifeStore(documentClient, adminTables),
      clock: () => wallClock.now(),
    })
    await life.cancel({
      grantId: id,
      issuerId: a.issuerId,
      actor: { kind: 'person', sub: 'sub-1', email: 'boss@example.com' },
    })
    const read = await call('GET', grantPath(a.programs.LIVE, id), a.keys.LIVE)
    expect(read.status).toBe(200)
    expect(read.body.history).toEqual([
      { at: expect.any(String), event: 'transition', state: 'canceled', actor: 'person' },
    ])
    expect(read.text).not.toContain('boss@example.com')
    expect(read.text).not.toContain('sub-1')
    // The stored history keeps who it was (the management API and the CLI show it).
    const stored = (await programState(a.programs.LIVE)).grants.find((g) => g.grantId === id)
    expect(stored?.history?.[0]?.actor).toBe('person:boss@example.com')
  })
})

describe('the contract (openapi.json) and these answers agree', () => {
  const { check: checkAnswer, seen, documented: listed } = contractCheck()
  const PATHS = {
    get: '/programs/{programId}/grants/{grantId}',
    cancel: '/programs/{programId}/grants/{grantId}/cancel',
    move: '/programs/{programId}/grants/{grantId}/test-transition',
    balance: '/programs/{programId}/recipients/{email}/balance',
  } as const
  const check = (path: string, method: 'get' | 'post', answer: Call) =>
    checkAnswer(path, method, answer, { examples: 'all' })
  const faulty = async (name: string, act: () => Promise<Call>) => {
    const id = `life-fault-${Math.random()}`
    dynamodb.middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error(name), { name, $metadata: { httpStatusCode: 400 } })
      },
      { step: 'initialize', name: id },
    )
    try {
      return await act()
    } finally {
      dynamodb.middlewareStack.remove(id)
    }
  }

  it('validates a real answer for every status the new integrator routes document', async () => {
    const p = a.programs.TEST
    const k = a.keys.TEST
    const open = await grant(a, 'TEST')
    const accepted = await grant(a, 'TEST')
    const live = await grant(a, 'LIVE')

    check(PATHS.move, 'post', await move(p, accepted, k, { to: 'accepted' }))
    check(PATHS.move, 'post', await move(p, open, k, { to: 'bogus' }))
    check(PATHS.move, 'post', await move(p, open, undefined, { to: 'offered' }))
    check(PATHS.move, 'post', await move(p, open, a.keys.LIVE, { to: 'offered' }))
    check(PATHS.move, 'post', await move(p, newId('grant'), k, { to: 'offered' }))
    check(PATHS.move, 'post', await move(a.programs.LIVE, live, a.keys.LIVE, { to: 'offered' }))
    check(
      PATHS.move,
      'post',
      await move(p, open, k, JSON.stringify({ to: 'offered', pad: 'x'.repeat(2_000) })),
    )
    check(
      PATHS.move,
      'post',
      await request(api.baseUrl, 'POST', `${grantPath(p, open)}/test-transition`, {
        headers: { 'x-api-key': k, 'content-type': 'text/plain' },
        body: 'x',
      }),
    )

    check(PATHS.get, 'get', await call('GET', grantPath(p, accepted), k))
    check(PATHS.cancel, 'post', await cancel(p, open, k))
    check(PATHS.cancel, 'post', await cancel(p, accepted, k))
    check(PATHS.cancel, 'post', await cancel(p, open))
    check(PATHS.cancel, 'post', await cancel(p, open, a.keys.LIVE))
    check(PATHS.cancel, 'post', await cancel(p, newId('grant'), k))

    check(PATHS.balance, 'get', await balance(p, 'ann@example.com', k))
    check(PATHS.balance, 'get', await balance(p, 'nope', k))
    check(PATHS.balance, 'get', await balance(p, 'ann@example.com'))
    check(PATHS.balance, 'get', await balance(p, 'ann@example.com', a.keys.LIVE))
    check(PATHS.balance, 'get', await balance(b.programs.TEST, 'ann@example.com', k))

    const another = await grant(a, 'TEST')
    for (const [path, method, act] of [
      [PATHS.cancel, 'post', () => cancel(p, another, k)],
      [PATHS.move, 'post', () => move(p, another, k, { to: 'offered' })],
      [PATHS.balance, 'get', () => balance(p, 'ann@example.com', k)],
    ] as const) {
      check(path, method, await faulty('ThrottlingException', act))
      check(path, method, await faulty('ValidationException', act))
    }

    const documented = (['cancel', 'move', 'balance'] as const).flatMap((name) =>
      listed(PATHS[name], name === 'balance' ? 'get' : 'post'),
    )
    expect(
      [...seen].filter((line) => !line.startsWith('get /programs/{programId}/grants/{')).sort(),
    ).toEqual(documented.sort())
  })
})
