import { AccessCache, CHECK_BOUND_MS } from '../../functions/core/access-cache'
import { makeGrantTokens } from '../../functions/core/grant-tokens'
import { allLeasesSettled } from '../../functions/core/rate-limiter'
import { GRANT_LIST_SLOTS } from '../../functions/domain/grant-slots'
import { newId } from '../../functions/domain/ids'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import { declaredAccess, recordAccess } from '../manage/grants-support'
import {
  adminTables,
  advanceCheckClock,
  type Call,
  countRoundTrips,
  createKey,
  expectProblem,
  grantBody,
  type Issuer,
  newIssuer,
  postGrant,
  request,
  revokeKey,
} from '../support/api'
import { useApi } from '../support/api-harness'
import { contractCheck } from '../support/contract-check'
import { documentClient, dynamodb, wallClock } from '../support/runtime'

/**
 * The integrators' reads, through real HTTP: `GET /programs/{programId}` and
 * `GET /programs/{programId}/grants`, with the rules of the GET of a grant (isolation, modes, a
 * revoked or expired key refused at once), paging, the recipient filter, and the contract.
 */
const api = useApi()
let a: Issuer
let b: Issuer
beforeAll(async () => {
  ;[a, b] = await Promise.all([newIssuer({ pool: 100 }), newIssuer()])
})

const get = (path: string, key?: string) =>
  request(api.baseUrl, 'GET', path, { headers: key === undefined ? {} : { 'x-api-key': key } })
/** The answer with everything that names the requested id or the request taken out. */
const shape = (call: Call) => ({
  status: call.status,
  type: call.body.type,
  title: call.body.title,
  code: call.body.code,
  detail: String(call.body.detail).replace(/(prg|gr)_\w+/g, 'ID'),
})

describe('GET /programs/{programId}', () => {
  it('answers the program of the key: mode, name, status, pool, issued, remaining', async () => {
    const before = await get(`/programs/${a.programs.TEST}`, a.keys.TEST)
    expect(before.status).toBe(200)
    expect(before.headers.get('x-request-id')).toMatch(/\S{8,}/)
    expect(before.body).toEqual({
      id: a.programs.TEST,
      object: 'program',
      mode: 'TEST',
      name: 'test program',
      status: 'active',
      pool: 100,
      issued: expect.any(Number),
      remaining: 100 - (before.body.issued as number),
      // The names a client of the reference product reads (issue 19).
      tokensCount: before.body.issued,
      active: true,
      // No value of a share set yet (issue 32).
      tokenValue: null,
      tokenValueCurrency: null,
      tokenValueCalculatedDate: null,
    })
    expect(
      (await postGrant(api.baseUrl, a.programs.TEST, a.keys.TEST, grantBody({ amount: 7 }))).status,
    ).toBe(201)
    const after = await get(`/programs/${a.programs.TEST}`, a.keys.TEST)
    expect([after.body.issued, after.body.remaining]).toEqual([
      (before.body.issued as number) + 7,
      (before.body.remaining as number) - 7,
    ])
    // Without a pool, pool and remaining are null.
    const unlimited = await get(`/programs/${b.programs.LIVE}`, b.keys.LIVE)
    expect(unlimited.body).toMatchObject({ mode: 'LIVE', pool: null, remaining: null, issued: 0 })
  })

  it("answers another issuer's program exactly as one that does not exist", async () => {
    for (const mode of ['TEST', 'LIVE'] as const) {
      const foreign = await get(`/programs/${b.programs[mode]}`, a.keys[mode])
      const missing = await get(`/programs/${newId('program')}`, a.keys[mode])
      expectProblem(foreign, 404, 'program_not_found')
      expect(shape(foreign)).toEqual(shape(missing))
      expect(shape(await get('/programs/prg_notanid', a.keys[mode]))).toEqual(shape(missing))
    }
  })

  it('refuses a key of the other mode with 403 mode_mismatch, both ways', async () => {
    expectProblem(await get(`/programs/${a.programs.LIVE}`, a.keys.TEST), 403, 'mode_mismatch')
    expectProblem(await get(`/programs/${a.programs.TEST}`, a.keys.LIVE), 403, 'mode_mismatch')
  })

  it('refuses a missing, malformed, revoked or expired key with 401, on the very next request', async () => {
    const path = `/programs/${a.programs.TEST}`
    expectProblem(await get(path), 401, 'missing_api_key')
    expectProblem(await get(path, 'vs_test_nope'), 401, 'invalid_api_key')
    const key = await createKey({ issuerId: a.issuerId, mode: 'TEST' })
    expect((await get(path, key.secret)).status).toBe(200)
    await revokeKey(key.record.keyHash)
    expectProblem(await get(path, key.secret), 401, 'invalid_api_key')
    expectProblem(await get(`${path}/grants`, key.secret), 401, 'invalid_api_key')

    const expiring = await createKey({
      issuerId: a.issuerId,
      mode: 'TEST',
      expiresAt: Date.now() + 60_000,
    })
    expect((await get(path, expiring.secret)).status).toBe(200)
    wallClock.advance(120_000)
    try {
      expectProblem(await get(path, expiring.secret), 401, 'invalid_api_key')
      expectProblem(await get(`${path}/grants`, expiring.secret), 401, 'invalid_api_key')
    } finally {
      wallClock.reset()
    }
  })

  it('costs two round trips (key and program in one BatchGetItem, then its shards) and exactly its declared IAM', async () => {
    // The key's check for its rate limit due: its GetItem is counted, as is its lease.
    advanceCheckClock(CHECK_BOUND_MS)
    const trips = countRoundTrips()
    const access = recordAccess(dynamodb)
    try {
      expect((await get(`/programs/${a.programs.LIVE}`, a.keys.LIVE)).status).toBe(200)
      await allLeasesSettled()
      // The key for its rate limit (once a second per instance: http/integrator-request.ts), the
      // key and program, then the program's shards (one more BatchGetItem sums them).
      expect(trips.calls).toEqual(['GetItemCommand', 'BatchGetItemCommand', 'BatchGetItemCommand'])
      expect(trips.leases.length).toBeLessThanOrEqual(1)
    } finally {
      trips.stop()
      access.stop()
    }
    expect([...access.seen].sort()).toEqual([...declaredAccess('GetProgramByKey')].sort())
  })
})

describe('GET /programs/{programId}/grants', () => {
  let issuer: Issuer
  const made: string[] = []
  beforeAll(async () => {
    issuer = await newIssuer()
    // Seven grants, one at a time so their times differ; three of them to Ann.
    for (let i = 0; i < 7; i++) {
      const call = await postGrant(
        api.baseUrl,
        issuer.programs.TEST,
        issuer.keys.TEST,
        grantBody({
          amount: i + 1,
          recipient: { email: i % 3 === 0 ? 'ann@example.com' : `r${i}@example.com` },
        }),
      )
      expect(call.status).toBe(201)
      made.push(call.body.id as string)
      // The next createdAt 3 ms later on the functions' clock: newest first is a strict order.
      wallClock.advance(3)
    }
  })
  const list = (query: string, key = issuer.keys.TEST, program = issuer.programs.TEST) =>
    get(`/programs/${program}/grants${query}`, key)

  it('lists newest first, as the grant API shows a grant, with a last page that says so', async () => {
    const page = await list('')
    expect(page.status).toBe(200)
    expect(page.body.object).toBe('list')
    expect(page.body.nextCursor).toBeNull()
    const data = page.body.data as Record<string, unknown>[]
    expect(data.map((g) => g.id)).toEqual([...made].reverse())
    expect(Object.keys(data[0] as object).sort()).toEqual(
      [
        'amount',
        'createdAt',
        'delivery',
        'expiresAt',
        'id',
        'mode',
        'object',
        'programId',
        'reason',
        'recipient',
        'rejectionReason',
        'status',
      ].sort(),
    )
  })

  it('pages with an opaque cursor: every grant once, in order, nothing after the last page', async () => {
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const page: Call = await list(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`)
      expect(page.status).toBe(200)
      const data = page.body.data as { id: string }[]
      expect(data.length).toBeLessThanOrEqual(3)
      seen.push(...data.map((g) => g.id))
      cursor = page.body.nextCursor as string | null
      pages++
    } while (cursor !== null)
    expect(seen).toEqual([...made].reverse())
    expect(pages).toBe(3)
    // Exactly a page's worth: the next cursor is null, not a pointer at an empty page.
    const seven = await list('?limit=7')
    expect(seven.body.nextCursor).toBeNull()
  })

  it('filters by recipient, normalised like recipient.email', async () => {
    const page = await list(`?recipient=${encodeURIComponent('  ANN@Example.com ')}`)
    expect(page.status).toBe(200)
    const data = page.body.data as { id: string; recipient: { email: string } }[]
    expect(data.map((g) => g.id)).toEqual([made[6], made[3], made[0]])
    expect(data.every((g) => g.recipient.email === 'ann@example.com')).toBe(true)
    const paged = await list('?recipient=ann%40example.com&limit=2')
    expect((paged.body.data as unknown[]).length).toBe(2)
    const rest = await list(`?recipient=ann%40example.com&limit=2&cursor=${paged.body.nextCursor}`)
    expect((rest.body.data as { id: string }[]).map((g) => g.id)).toEqual([made[0]])
    expect(rest.body.nextCursor).toBeNull()
    expect((await list('?recipient=nobody%40example.com')).body).toMatchObject({
      data: [],
      nextCursor: null,
    })
  })

  it('refuses a bad query before reading anything: 400 naming each parameter', async () => {
    const trips = countRoundTrips()
    try {
      for (const [query, field] of [
        ['?limit=0', 'limit'],
        ['?limit=101', 'limit'],
        ['?limit=ten', 'limit'],
        ['?cursor=not-a-cursor', 'cursor'],
        [
          `?cursor=${Buffer.from(`2026-01-01T00:00:00.000Z ${newId('program')}`).toString('base64url')}`,
          'cursor',
        ],
        ['?recipient=not-an-address', 'recipient'],
        ['?recipent=ann%40example.com', 'recipent'],
      ] as const) {
        const call = await list(query)
        expectProblem(call, 400, 'validation_failed')
        expect((call.body.errors as { field: string }[]).map((e) => e.field)).toEqual([field])
      }
      expect(trips.calls).toEqual([])
    } finally {
      trips.stop()
    }
  })

  it("keeps issuers and modes apart: another issuer's program is 404, the other mode 403", async () => {
    const foreign = await list('', a.keys.TEST, issuer.programs.TEST)
    const missing = await list('', a.keys.TEST, newId('program'))
    expectProblem(foreign, 404, 'program_not_found')
    expect(shape(foreign)).toEqual(shape(missing))
    expectProblem(await list('', issuer.keys.LIVE), 403, 'mode_mismatch')
    // A cursor from one program cannot open another: the program is always the path's.
    const first = await list('?limit=1')
    const other = await list(
      `?limit=1&cursor=${first.body.nextCursor}`,
      issuer.keys.LIVE,
      issuer.programs.LIVE,
    )
    expect(other.body).toMatchObject({ data: [], nextCursor: null })
  })

  it("never shows who sent a grant from the management API (the API's resource only)", async () => {
    const store = new DynamoDbGrantStore(documentClient, adminTables)
    const send = makeGrantTokens({ store, access: new AccessCache(store) })
    const { grant } = await send({
      member: { issuerId: issuer.issuerId, sentBy: { sub: 'sub-1', email: 'boss@example.com' } },
      programId: issuer.programs.LIVE,
      idempotencyKey: undefined,
      body: grantBody({ amount: 2 }),
    })
    expect(grant.sentBy).toEqual({ sub: 'sub-1', email: 'boss@example.com' })
    const page = await list('', issuer.keys.LIVE, issuer.programs.LIVE)
    expect(page.text).not.toContain('boss@example.com')
    expect(page.text).not.toContain('sentBy')
    expect((page.body.data as { id: string }[]).map((g) => g.id)).toContain(grant.grantId)
  })

  it('costs two round trips (key and program, then the index) and exactly its declared IAM', async () => {
    advanceCheckClock(CHECK_BOUND_MS)
    const trips = countRoundTrips()
    const access = recordAccess(dynamodb)
    try {
      expect((await list('?limit=2')).status).toBe(200)
      await allLeasesSettled()
      // The key for its rate limit, the key and the program, then one Query per slot of the
      // program's listing, in parallel.
      expect(trips.calls).toEqual([
        'GetItemCommand',
        'BatchGetItemCommand',
        ...Array.from({ length: GRANT_LIST_SLOTS }, () => 'QueryCommand'),
      ])
    } finally {
      trips.stop()
      access.stop()
    }
    expect([...access.seen].sort()).toEqual([...declaredAccess('ListGrantsByKey')].sort())
  })
})

describe('the contract (openapi.json) and these answers agree', () => {
  const { check: checkAnswer, seen, documented: listed } = contractCheck()
  const PATHS = ['/programs/{programId}', '/programs/{programId}/grants'] as const
  const check = (path: (typeof PATHS)[number], call: Call) =>
    checkAnswer(path, 'get', call, { examples: 'ok' })

  it('validates a real answer for every status the two reads document', async () => {
    const program = '/programs/{programId}' as const
    const grants = '/programs/{programId}/grants' as const
    const p = `/programs/${a.programs.TEST}`
    check(program, await get(p, a.keys.TEST))
    check(program, await get(p))
    check(program, await get(p, a.keys.LIVE))
    check(program, await get(`/programs/${b.programs.TEST}`, a.keys.TEST))
    check(grants, await get(`${p}/grants?limit=1`, a.keys.TEST))
    check(grants, await get(`${p}/grants?limit=500`, a.keys.TEST))
    check(grants, await get(`${p}/grants`))
    check(grants, await get(`${p}/grants`, a.keys.LIVE))
    check(grants, await get(`/programs/${b.programs.TEST}/grants`, a.keys.TEST))

    const faulty = async (name: string, act: () => Promise<Call>) => {
      const id = `reads-fault-${Math.random()}`
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
    for (const [path, url] of [
      [program, p],
      [grants, `${p}/grants`],
    ] as const) {
      check(path, await faulty('ThrottlingException', () => get(url, a.keys.TEST)))
      check(path, await faulty('ValidationException', () => get(url, a.keys.TEST)))
    }
    const documented = PATHS.flatMap((path) => listed(path, 'get'))
    expect([...seen].sort()).toEqual(documented.sort())
  })
})
