import { randomUUID } from 'node:crypto'
import { CHECK_BOUND_MS } from '../../functions/core/access-cache'
import { newId } from '../../functions/domain/ids'
import type { Role } from '../../functions/domain/people'
import { ROUTES } from '../../functions/routes'
import {
  advanceCheckClock,
  type Call,
  expectProblem,
  type Issuer,
  newIssuer,
  postGrant,
  programState,
  request,
} from '../support/api'
import { useApi } from '../support/api-harness'
import {
  accessClaims,
  accessTokenFor,
  bearer,
  expiredToken,
  forgedToken,
  idTokenFor,
  otherPoolToken,
  type Person,
  signUpPerson,
} from '../support/identity'
import { THROTTLED, UNEXPECTED, withDynamoDbFault } from './dynamodb-faults'
import {
  auditOf,
  contract,
  documented,
  documentedStatuses,
  expectIssuersUnchanged,
  expectNoSecret,
  join,
  leave,
  manage,
  setRole,
} from './programs-keys.support'

/**
 * The program and key routes of the management API, through the local server with real access
 * tokens from the run's Cognito emulator: who may call each route (every route x no token,
 * another issuer's owner, a person of no issuer, a viewer on a write, a removed member, a lowered
 * role, another issuer's program or key), and what each does when allowed.
 */

const api = useApi()
let a: Issuer
let b: Issuer
let owner: Person
let admin: Person
let viewer: Person
let ownerOfB: Person
let stranger: Person
let drifter: Person

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

beforeAll(async () => {
  ;[a, b] = await Promise.all([newIssuer({ pool: 100 }), newIssuer()])
  ;[owner, admin, viewer, ownerOfB, stranger, drifter] = (await Promise.all(
    Array.from({ length: 6 }, () => signUpPerson()),
  )) as [Person, Person, Person, Person, Person, Person]
  await Promise.all([
    join(owner, a.issuerId, 'owner'),
    join(admin, a.issuerId, 'admin'),
    join(viewer, a.issuerId, 'viewer'),
    join(ownerOfB, b.issuerId, 'owner'),
  ])
})

const call = (person: Person | undefined, method: string, path: string, body?: unknown) =>
  manage(api.baseUrl, person, method, path, body)

/** Every program and key route, aimed at issuer A and A's own TEST program and key. */
type RouteCase = {
  id: string
  method: string
  path: (issuerId: string, ids: { programId: string; keyId: string }) => string
  body?: unknown
  write: boolean
  /** What the path names besides the issuer: another issuer's one must answer 404 with this. */
  target?: 'program_not_found' | 'key_not_found'
}
const CASES: RouteCase[] = [
  { id: 'ListPrograms', method: 'GET', path: (i) => `/manage/issuers/${i}/programs`, write: false },
  {
    id: 'CreateProgram',
    method: 'POST',
    path: (i) => `/manage/issuers/${i}/programs`,
    body: { name: 'Refused', mode: 'TEST', pool: 5 },
    write: true,
  },
  {
    id: 'GetProgram',
    method: 'GET',
    path: (i, { programId }) => `/manage/issuers/${i}/programs/${programId}`,
    write: false,
    target: 'program_not_found',
  },
  ...(['pause', 'close', 'resume'] as const).map((action) => ({
    id: `${action[0]?.toUpperCase()}${action.slice(1)}Program`,
    method: 'POST',
    path: (i: string, { programId }: { programId: string }) =>
      `/manage/issuers/${i}/programs/${programId}/${action}`,
    write: true,
    target: 'program_not_found' as const,
  })),
  { id: 'ListKeys', method: 'GET', path: (i) => `/manage/issuers/${i}/keys`, write: false },
  {
    id: 'CreateKey',
    method: 'POST',
    path: (i) => `/manage/issuers/${i}/keys`,
    body: { mode: 'TEST' },
    write: true,
  },
  {
    id: 'RollKey',
    method: 'POST',
    path: (i, { keyId }) => `/manage/issuers/${i}/keys/${keyId}/roll`,
    body: { grace: '0' },
    write: true,
    target: 'key_not_found',
  },
  {
    id: 'RevokeKey',
    method: 'POST',
    path: (i, { keyId }) => `/manage/issuers/${i}/keys/${keyId}/revoke`,
    write: true,
    target: 'key_not_found',
  },
  {
    id: 'UpdateKey',
    method: 'PATCH',
    path: (i, { keyId }) => `/manage/issuers/${i}/keys/${keyId}`,
    body: { rateLimit: 5 },
    write: true,
    target: 'key_not_found',
  },
  { id: 'ListAudit', method: 'GET', path: (i) => `/manage/issuers/${i}/audit`, write: false },
]

const ownIds = () => ({ programId: a.programs.TEST, keyId: a.keyRecords.TEST.keyId })
const send = (person: Person | undefined, c: RouteCase, issuerId = a.issuerId, ids = ownIds()) =>
  call(person, c.method, c.path(issuerId, ids), c.body)
const both = () => [a.issuerId, b.issuerId]
/**
 * The answer held against openapi.json (programs-keys.support.ts, documented): every route here
 * but ListAudit, whose document is the people module's (test/manage/audit-me.manage.test.ts).
 */
const checked = (c: RouteCase, answer: Call) =>
  c.id === 'ListAudit' ? answer : documented(c.id, answer)

describe('who may call the program, key and audit routes', () => {
  it('covers every program, key and audit route of functions/routes.ts', () => {
    const mine = ROUTES.filter((r) =>
      /^(GET|POST|PATCH) \/manage\/issuers\/\{issuerId\}\/(programs|keys|audit)(\/\{(programId|keyId)\}(\/(pause|resume|close|roll|revoke))?)?$/.test(
        r.routeKey,
      ),
    ).map((r) => r.id)
    expect(CASES.map((c) => c.id).sort()).toEqual([...mine].sort())
  })

  it.each(CASES)('$id without a token: 401 from the gateway, nothing written', async (c) => {
    await expectIssuersUnchanged(both(), async () => {
      const answer = checked(c, await send(undefined, c))
      expect(answer.status).toBe(401)
      expect(answer.body).toEqual({ message: 'Unauthorized' })
    })
  })

  it.each(CASES)(
    "$id with an expired token, another pool's token or a forged one: 401, nothing written",
    async (c) => {
      const tokens = [
        await expiredToken(admin),
        await otherPoolToken(),
        await forgedToken(accessClaims(admin)),
      ]
      await expectIssuersUnchanged(both(), async () => {
        for (const token of tokens) {
          const answer = checked(
            c,
            await request(api.baseUrl, c.method, c.path(a.issuerId, ownIds()), {
              headers: { ...bearer(token), 'content-type': 'application/json' },
              ...(c.body === undefined ? {} : { body: JSON.stringify(c.body) }),
            }),
          )
          expect({ status: answer.status, body: answer.body }).toEqual({
            status: 401,
            body: { message: 'Unauthorized' },
          })
        }
      })
    },
  )

  it.each(CASES)(
    '$id with an ID token (no scope): 403 from the gateway, nothing written',
    async (c) => {
      const token = await idTokenFor(admin)
      await expectIssuersUnchanged(both(), async () => {
        const answer = checked(
          c,
          await request(api.baseUrl, c.method, c.path(a.issuerId, ownIds()), {
            headers: { ...bearer(token), 'content-type': 'application/json' },
            ...(c.body === undefined ? {} : { body: JSON.stringify(c.body) }),
          }),
        )
        expect({ status: answer.status, body: answer.body }).toEqual({
          status: 403,
          body: { message: 'Forbidden' },
        })
      })
    },
  )

  it.each(CASES)(
    '$id by a person of no issuer: 404 issuer_not_found, nothing written',
    async (c) => {
      await expectIssuersUnchanged(both(), async () => {
        expectProblem(checked(c, await send(stranger, c)), 404, 'issuer_not_found')
      })
    },
  )

  it.each(CASES)(
    "$id by another issuer's owner: 404 issuer_not_found, as for no issuer at all",
    async (c) => {
      await expectIssuersUnchanged(both(), async () => {
        const answer = await send(ownerOfB, c)
        expectProblem(answer, 404, 'issuer_not_found')
        const none = await send(ownerOfB, c, newId('issuer'))
        expectProblem(none, 404, 'issuer_not_found')
        expect(answer.body.detail).toBe(
          `No issuer ${JSON.stringify(a.issuerId)} is visible to you.`,
        )
      })
    },
  )

  it.each(CASES)('$id with a malformed issuer id: 404 issuer_not_found', async (c) => {
    expectProblem(await send(owner, c, 'iss_NOT-AN-ID'), 404, 'issuer_not_found')
  })

  it.each(CASES.filter((c) => c.write))(
    '$id by a viewer: 403 forbidden, nothing written',
    async (c) => {
      await expectIssuersUnchanged(both(), async () => {
        const answer = checked(c, await send(viewer, c))
        expectProblem(answer, 403, 'forbidden')
        expect(answer.body.detail).toBe(
          'Your role in this issuer is viewer; this needs admin or above.',
        )
      })
    },
  )

  it.each(CASES.filter((c) => !c.write))('$id by a viewer: 200', async (c) => {
    expect(checked(c, await send(viewer, c)).status).toBe(200)
  })

  it.each(CASES.filter((c) => c.target !== undefined))(
    "$id with another issuer's id, an unknown one or a malformed one: 404, nothing written",
    async (c) => {
      const theirs = { programId: b.programs.TEST, keyId: b.keyRecords.TEST.keyId }
      const unknown = { programId: newId('program'), keyId: newId('apiKey') }
      const malformed = { programId: 'prg_x', keyId: 'key_NOT-AN-ID' }
      await expectIssuersUnchanged(both(), async () => {
        const answers: Call[] = []
        for (const ids of [theirs, unknown, malformed]) {
          const answer = checked(c, await send(owner, c, a.issuerId, ids))
          expectProblem(answer, 404, c.target as string)
          answers.push(answer)
        }
        // Another issuer's id is told apart from an unknown one by nothing but the id itself.
        const [their, none] = answers.map((x) => x.body.detail) as [string, string]
        const id = c.target === 'program_not_found' ? 'programId' : 'keyId'
        expect(their.replace(theirs[id], 'ID')).toBe(none.replace(unknown[id], 'ID'))
      })
    },
  )

  it.each(CASES)(
    '$id by a removed member: the very next call is 404, nothing written',
    async (c) => {
      await join(drifter, a.issuerId, 'admin')
      expect((await call(drifter, 'GET', `/manage/issuers/${a.issuerId}/programs`)).status).toBe(
        200,
      )
      await leave(drifter, a.issuerId)
      await expectIssuersUnchanged(both(), async () => {
        expectProblem(await send(drifter, c), 404, 'issuer_not_found')
      })
    },
  )

  it.each(CASES.filter((c) => c.write))(
    '$id by an admin lowered to viewer: the very next call is 403, nothing written',
    async (c) => {
      await join(drifter, a.issuerId, 'admin')
      expect((await call(drifter, 'GET', `/manage/issuers/${a.issuerId}/keys`)).status).toBe(200)
      await setRole(drifter, a.issuerId, 'viewer')
      await expectIssuersUnchanged(both(), async () => {
        expectProblem(await send(drifter, c), 403, 'forbidden')
      })
      await leave(drifter, a.issuerId)
    },
  )

  it('takes a role change on the very next call, both ways', async () => {
    const person = await signUpPerson()
    await join(person, a.issuerId, 'admin')
    const create = (name: string) =>
      call(person, 'POST', `/manage/issuers/${a.issuerId}/programs`, { name, mode: 'TEST' })
    expect((await create('First')).status).toBe(201)
    for (const [role, status] of [
      ['viewer', 403],
      ['owner', 201],
      ['viewer', 403],
      ['admin', 201],
    ] as [Role, number][]) {
      await setRole(person, a.issuerId, role)
      expect((await create(`As ${role}`)).status).toBe(status)
    }
  })
})

describe('programs', () => {
  it('lists the issuer programs with their counters, filtered by mode', async () => {
    const c = await newIssuer({ pool: 100 })
    await join(viewer, c.issuerId, 'viewer')
    await postGrant(api.baseUrl, c.programs.TEST, c.keys.TEST)
    const list = documented(
      'ListPrograms',
      await call(viewer, 'GET', `/manage/issuers/${c.issuerId}/programs`),
      { examples: 'all' },
    )
    expect(list.status).toBe(200)
    expect(list.headers.get('content-type')).toBe('application/json')
    expect(list.headers.get('cache-control')).toBe('no-store')
    const program = (id: string, mode: string, issued: number) => ({
      id,
      mode,
      name: `${mode.toLowerCase()} program`,
      status: 'active',
      pool: 100,
      issued,
      remaining: 100 - issued,
      createdAt: expect.stringMatching(ISO),
      offerDays: 30,
      minAge: null,
      countries: null,
      description: null,
      terms: null,
      poolLowThreshold: null,
      tokenValue: null,
      tokenValueCurrency: null,
      tokenValueCalculatedDate: null,
    })
    expect(Object.keys(list.body)).toEqual(['programs'])
    expect(
      (list.body.programs as { mode: string }[]).sort((x, y) => x.mode.localeCompare(y.mode)),
    ).toEqual([program(c.programs.LIVE, 'LIVE', 0), program(c.programs.TEST, 'TEST', 1)])

    const live = documented(
      'ListPrograms',
      await call(viewer, 'GET', `/manage/issuers/${c.issuerId}/programs?mode=live`),
    )
    expect(live.body).toEqual({ programs: [program(c.programs.LIVE, 'LIVE', 0)] })
    const one = documented(
      'GetProgram',
      await call(viewer, 'GET', `/manage/issuers/${c.issuerId}/programs/${c.programs.TEST}`),
      { examples: 'all' },
    )
    expect(one.status).toBe(200)
    expect(one.body).toEqual(program(c.programs.TEST, 'TEST', 1))
  })

  it('refuses a bad mode filter and unknown query parameters, naming them', async () => {
    const bad = documented(
      'ListPrograms',
      await call(viewer, 'GET', `/manage/issuers/${a.issuerId}/programs?mode=foo`),
    )
    expectProblem(bad, 400, 'validation_failed')
    expect(bad.body.errors).toEqual([
      { field: 'mode', message: 'mode must be TEST or LIVE, got "foo"' },
    ])
    const typo = documented(
      'ListPrograms',
      await call(viewer, 'GET', `/manage/issuers/${a.issuerId}/programs?mdoe=TEST`),
    )
    expectProblem(typo, 400, 'validation_failed')
    expect(typo.body.errors).toEqual([{ field: 'mdoe', message: 'unknown query parameter "mdoe"' }])
  })

  it('creates a program: 201, Location, the program as it is stored, and its audit entry', async () => {
    const created = documented(
      'CreateProgram',
      await call(admin, 'POST', `/manage/issuers/${a.issuerId}/programs`, {
        name: '  Referrals ',
        mode: 'live',
        pool: 1000,
      }),
      { examples: 'all' },
    )
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: expect.stringMatching(/^prg_[0-9a-z]{26}$/),
      mode: 'LIVE',
      name: 'Referrals',
      status: 'active',
      pool: 1000,
      issued: 0,
      remaining: 1000,
      createdAt: expect.stringMatching(ISO),
      // The offer settings of a new program: the default window, no rules, no terms yet, no
      // pool-low threshold.
      offerDays: 30,
      minAge: null,
      countries: null,
      description: null,
      terms: null,
      poolLowThreshold: null,
      tokenValue: null,
      tokenValueCurrency: null,
      tokenValueCalculatedDate: null,
    })
    const id = created.body.id as string
    expect(created.headers.get('location')).toBe(`/manage/issuers/${a.issuerId}/programs/${id}`)
    const read = documented(
      'GetProgram',
      await call(viewer, 'GET', created.headers.get('location') as string),
    )
    expect(read.body).toEqual(created.body)
    expect((await programState(id)).program).toMatchObject({ issuerId: a.issuerId, pool: 1000 })
    const [entry] = await auditOf(a.issuerId)
    expect(entry).toEqual({
      issuerId: a.issuerId,
      entryId: expect.stringMatching(/^\d{4}-.*Z#[0-9a-f]{8}$/),
      at: expect.stringMatching(ISO),
      actor: { kind: 'person', sub: admin.sub, email: admin.email },
      action: 'program.create',
      target: { type: 'program', id },
      requestId: created.headers.get('x-request-id'),
      details: { mode: 'LIVE', name: 'Referrals', pool: 1000 },
    })
    const unlimited = documented(
      'CreateProgram',
      await call(admin, 'POST', `/manage/issuers/${a.issuerId}/programs`, {
        name: 'No limit',
        mode: 'TEST',
        pool: null,
      }),
    )
    expect(unlimited.body).toMatchObject({ pool: null, remaining: null, issued: 0 })
  })

  it.each([
    [
      { name: '', mode: 'FOO', pool: -5 },
      [
        ['mode', 'mode must be TEST or LIVE, got "FOO"'],
        ['name', 'name must be 1 to 100 characters without control characters'],
        ['pool', 'pool must be a whole number from 1 to 1000000000000, got -5'],
      ],
    ],
    [
      { name: 'x', mode: 'TEST', pool: 2.5 },
      [['pool', 'pool must be a whole number from 1 to 1000000000000, got 2.5']],
    ],
    [
      { name: '\u200b', mode: 'TEST' },
      [['name', 'name must be 1 to 100 characters without control characters']],
    ],
    [
      { name: 'x'.repeat(101), mode: 'TEST' },
      [['name', 'name must be 1 to 100 characters without control characters']],
    ],
    [{ name: 'x', mode: 'TEST', poool: 5 }, [['poool', 'unknown field "poool"']]],
    [{ name: 1, mode: 'TEST' }, [['name', 'name must be a string']]],
    [{ name: 'x', mode: 'TEST', pool: '5' }, [['pool', 'pool must be a number']]],
    [{ name: 'x' }, [['mode', 'mode is required']]],
    [[1], [['(body)', 'The body must be a JSON object']]],
  ])('refuses %j with 400 naming each field, nothing written', async (body, errors) => {
    await expectIssuersUnchanged([a.issuerId], async () => {
      const answer = documented(
        'CreateProgram',
        await call(admin, 'POST', `/manage/issuers/${a.issuerId}/programs`, body),
      )
      expectProblem(answer, 400, 'validation_failed')
      expect(answer.body.errors).toEqual(errors.map(([field, message]) => ({ field, message })))
    })
  })

  it('pauses, resumes and closes; grants follow; a change the status forbids is 409 and writes nothing', async () => {
    const created = await call(admin, 'POST', `/manage/issuers/${a.issuerId}/programs`, {
      name: 'Lifecycle',
      mode: 'TEST',
    })
    const id = created.body.id as string
    const change = async (action: string) =>
      documented(
        `${action[0]?.toUpperCase()}${action.slice(1)}Program`,
        await call(admin, 'POST', `/manage/issuers/${a.issuerId}/programs/${id}/${action}`),
        { examples: 'all' },
      )
    const paused = await change('pause')
    expect(paused.status).toBe(200)
    expect(paused.body).toEqual({ ...created.body, status: 'paused' })
    expect((await postGrant(api.baseUrl, id, a.keys.TEST)).body.code).toBe('program_inactive')
    const final = `Program ${id} is closed; closing is final.`
    for (const [action, status, refusal] of [
      ['pause', 'paused', `Program ${id} is paused; cannot pause it.`],
      ['resume', 'active', undefined],
      ['resume', 'active', `Program ${id} is active; cannot resume it.`],
      ['close', 'closed', undefined],
      ['resume', 'closed', final],
      ['pause', 'closed', final],
      ['close', 'closed', final],
    ] as [string, string, string | undefined][]) {
      const before = await auditOf(a.issuerId)
      const answer = await change(action)
      if (refusal === undefined) {
        expect(answer.status).toBe(200)
        expect(answer.body.status).toBe(status)
        expect((await auditOf(a.issuerId))[0]).toMatchObject({
          action: `program.${action}`,
          target: { type: 'program', id },
          actor: { kind: 'person', sub: admin.sub, email: admin.email },
          requestId: answer.headers.get('x-request-id'),
        })
      } else {
        expectProblem(answer, 409, 'program_state_conflict')
        expect(answer.body.detail).toBe(refusal)
        expect(await auditOf(a.issuerId)).toEqual(before)
      }
      expect((await programState(id)).program?.status).toBe(status)
    }
    expect((await postGrant(api.baseUrl, id, a.keys.TEST)).body.code).toBe('program_inactive')
    const actions = (await auditOf(a.issuerId))
      .filter((e) => e.target.id === id)
      .map((e) => [e.action, e.details])
    expect(actions).toEqual([
      ['program.close', { from: 'active', to: 'closed' }],
      ['program.resume', { from: 'paused', to: 'active' }],
      ['program.pause', { from: 'active', to: 'paused' }],
      ['program.create', { mode: 'TEST', name: 'Lifecycle', pool: null }],
    ])
  })
})

describe('keys', () => {
  const secrets: string[] = []
  const seen: string[] = []

  it('creates a key: 201 with the secret once (no-store), which works on the grant API at once', async () => {
    const before = Date.now()
    const created = documented(
      'CreateKey',
      await call(admin, 'POST', `/manage/issuers/${a.issuerId}/keys`, {
        mode: 'TEST',
        expiresIn: '90d',
      }),
      { examples: 'all' },
    )
    expect(created.status).toBe(201)
    expect(created.headers.get('cache-control')).toBe('no-store')
    const secret = created.body.secret as string
    secrets.push(secret)
    expect(created.body).toEqual({
      id: expect.stringMatching(/^key_[0-9a-z]{26}$/),
      mode: 'TEST',
      prefix: 'vs_test_',
      last4: secret.slice(-4),
      status: 'active',
      createdAt: expect.stringMatching(ISO),
      createdBy: admin.email,
      expiresAt: expect.stringMatching(ISO),
      rateLimit: 25,
      rateLimitIsDefault: true,
      secret: expect.stringMatching(/^vs_test_[0-9A-Za-z]{30}$/),
    })
    const expiresAt = Date.parse(created.body.expiresAt as string)
    expect(expiresAt - before).toBeGreaterThanOrEqual(90 * 86_400_000)
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(90 * 86_400_000)
    expect((await postGrant(api.baseUrl, a.programs.TEST, secret)).status).toBe(201)
    const [entry] = await auditOf(a.issuerId)
    expect(entry).toMatchObject({
      action: 'key.create',
      target: { type: 'key', id: created.body.id },
      actor: { kind: 'person', sub: admin.sub, email: admin.email },
      requestId: created.headers.get('x-request-id'),
      details: { mode: 'TEST', expiresAt: created.body.expiresAt },
    })
    seen.push(created.text.replace(secret, ''), JSON.stringify(entry))

    const list = documented(
      'ListKeys',
      await call(viewer, 'GET', `/manage/issuers/${a.issuerId}/keys`),
      { examples: 'all' },
    )
    expect(list.status).toBe(200)
    const { secret: _, ...shown } = created.body
    expect(list.body.keys).toContainEqual(shown)
    for (const key of list.body.keys as Record<string, unknown>[]) {
      expect(Object.keys(key).sort()).toEqual(
        [
          'id',
          'mode',
          'prefix',
          'last4',
          'status',
          'createdAt',
          'createdBy',
          'expiresAt',
          'rateLimit',
          'rateLimitIsDefault',
        ].sort(),
      )
    }
    const live = documented(
      'ListKeys',
      await call(viewer, 'GET', `/manage/issuers/${a.issuerId}/keys?mode=LIVE`),
    )
    expect((live.body.keys as { id: string }[]).map((k) => k.id)).toEqual([a.keyRecords.LIVE.keyId])
    // Keys the operator made before `createdBy` existed show null.
    expect(live.body.keys).toEqual([expect.objectContaining({ createdBy: null })])
    expectNoSecret([list.text, live.text], secrets)
  })

  it('refuses a bad mode filter and unknown query parameters on the key list, naming them', async () => {
    const bad = documented(
      'ListKeys',
      await call(viewer, 'GET', `/manage/issuers/${a.issuerId}/keys?mode=both`),
    )
    expectProblem(bad, 400, 'validation_failed')
    expect(bad.body.errors).toEqual([
      { field: 'mode', message: 'mode must be TEST or LIVE, got "both"' },
    ])
    const typo = documented(
      'ListKeys',
      await call(viewer, 'GET', `/manage/issuers/${a.issuerId}/keys?status=active`),
    )
    expectProblem(typo, 400, 'validation_failed')
    expect(typo.body.errors).toEqual([
      { field: 'status', message: 'unknown query parameter "status"' },
    ])
  })

  it('refuses bad key bodies with 400 naming each field, nothing written', async () => {
    for (const [body, errors] of [
      [
        { mode: 'X', expiresIn: '9x' },
        [
          ['mode', 'mode must be TEST or LIVE, got "X"'],
          [
            'expiresIn',
            'expiresIn must be a duration from 1s to 3650d, like 90d, 24h, 30m or 45s, got "9x"',
          ],
        ],
      ],
      [
        { mode: 'TEST', expiresIn: '0' },
        [
          [
            'expiresIn',
            'expiresIn must be a duration from 1s to 3650d, like 90d, 24h, 30m or 45s, got "0"',
          ],
        ],
      ],
      [{ mode: 'TEST', expiresIn: 90 }, [['expiresIn', 'expiresIn must be a string']]],
      [{ mode: 'TEST', secret: 'mine' }, [['secret', 'unknown field "secret"']]],
    ] as [unknown, [string, string][]][]) {
      await expectIssuersUnchanged([a.issuerId], async () => {
        const answer = documented(
          'CreateKey',
          await call(admin, 'POST', `/manage/issuers/${a.issuerId}/keys`, body),
        )
        expectProblem(answer, 400, 'validation_failed')
        expect(answer.body.errors).toEqual(errors.map(([field, message]) => ({ field, message })))
      })
    }
  })

  it('rolls a key: a new secret once; the old one works until the grace period ends', async () => {
    const created = await call(admin, 'POST', `/manage/issuers/${a.issuerId}/keys`, {
      mode: 'TEST',
    })
    const old = created.body.secret as string
    secrets.push(old)
    // No body: the default grace of 24 hours.
    const rolled = documented(
      'RollKey',
      await call(admin, 'POST', `/manage/issuers/${a.issuerId}/keys/${created.body.id}/roll`),
      { examples: 'all' },
    )
    expect(rolled.status).toBe(201)
    expect(rolled.headers.get('cache-control')).toBe('no-store')
    const next = rolled.body.secret as string
    secrets.push(next)
    expect(rolled.body).toEqual({
      id: expect.stringMatching(/^key_/),
      mode: 'TEST',
      prefix: 'vs_test_',
      last4: next.slice(-4),
      status: 'active',
      createdAt: expect.stringMatching(ISO),
      createdBy: admin.email,
      expiresAt: null,
      rateLimit: 25,
      rateLimitIsDefault: true,
      secret: expect.stringMatching(/^vs_test_/),
      old: {
        ...(({ secret: _, ...rest }) => rest)(created.body),
        expiresAt: expect.stringMatching(ISO),
      },
    })
    const grace = Date.parse((rolled.body.old as { expiresAt: string }).expiresAt) - Date.now()
    expect(grace).toBeGreaterThan(23.9 * 3_600_000)
    expect(grace).toBeLessThanOrEqual(24 * 3_600_000)
    expect((await postGrant(api.baseUrl, a.programs.TEST, old)).status).toBe(201)
    expect((await postGrant(api.baseUrl, a.programs.TEST, next)).status).toBe(201)
    expect((await auditOf(a.issuerId))[0]).toMatchObject({
      action: 'key.roll',
      target: { type: 'key', id: created.body.id },
      requestId: rolled.headers.get('x-request-id'),
      details: {
        newKeyId: rolled.body.id,
        oldExpiresAt: (rolled.body.old as { expiresAt: string }).expiresAt,
      },
    })

    // Grace 0: the old key stops on the very next request.
    const again = documented(
      'RollKey',
      await call(admin, 'POST', `/manage/issuers/${a.issuerId}/keys/${rolled.body.id}/roll`, {
        grace: '0',
      }),
    )
    expect(again.status).toBe(201)
    // The old key's grace is over at once: the answer shows it expired.
    expect((again.body.old as { status: string }).status).toBe('expired')
    secrets.push(again.body.secret as string)
    // The grant path re-reads a key it checked CHECK_BOUND_MS ago, and sees the new expiry.
    advanceCheckClock(CHECK_BOUND_MS)
    expectProblem(await postGrant(api.baseUrl, a.programs.TEST, next), 401, 'invalid_api_key')
    expect(
      (await postGrant(api.baseUrl, a.programs.TEST, again.body.secret as string)).status,
    ).toBe(201)
    // An expired key cannot be rolled: 409, nothing written.
    await expectIssuersUnchanged([a.issuerId], async () => {
      const refused = documented(
        'RollKey',
        await call(admin, 'POST', `/manage/issuers/${a.issuerId}/keys/${rolled.body.id}/roll`, {}),
      )
      expectProblem(refused, 409, 'key_state_conflict')
      expect(refused.body.detail).toBe(
        `Key ${rolled.body.id} is expired; only an active key can be rolled.`,
      )
      const bad = documented(
        'RollKey',
        await call(admin, 'POST', `/manage/issuers/${a.issuerId}/keys/${again.body.id}/roll`, {
          grace: '-5h',
        }),
      )
      expectProblem(bad, 400, 'validation_failed')
      expect(bad.body.errors).toEqual([
        {
          field: 'grace',
          message:
            'grace must be 0 (none) or a duration from 1s to 3650d, like 90d, 24h, 30m or 45s, got "-5h"',
        },
      ])
    })
    seen.push(created.text.replace(old, ''), rolled.text.replace(next, '').replace(old, ''))
  })

  it('revokes a key: the grant API refuses it once its check is CHECK_BOUND_MS old', async () => {
    const created = await call(admin, 'POST', `/manage/issuers/${a.issuerId}/keys`, {
      mode: 'LIVE',
    })
    const secret = created.body.secret as string
    secrets.push(secret)
    expect((await postGrant(api.baseUrl, a.programs.LIVE, secret)).status).toBe(201)
    const revoked = documented(
      'RevokeKey',
      await call(admin, 'POST', `/manage/issuers/${a.issuerId}/keys/${created.body.id}/revoke`),
      { examples: 'all' },
    )
    expect(revoked.status).toBe(200)
    const { secret: _, ...shown } = created.body
    expect(revoked.body).toEqual({ ...shown, status: 'revoked' })
    advanceCheckClock(CHECK_BOUND_MS)
    expectProblem(await postGrant(api.baseUrl, a.programs.LIVE, secret), 401, 'invalid_api_key')
    expect((await auditOf(a.issuerId))[0]).toMatchObject({
      action: 'key.revoke',
      target: { type: 'key', id: created.body.id },
      actor: { kind: 'person', sub: admin.sub, email: admin.email },
      requestId: revoked.headers.get('x-request-id'),
    })
    // Again: the key as it is, and nothing written (no second audit entry).
    await expectIssuersUnchanged([a.issuerId], async () => {
      const again = documented(
        'RevokeKey',
        await call(owner, 'POST', `/manage/issuers/${a.issuerId}/keys/${created.body.id}/revoke`),
      )
      expect(again.status).toBe(200)
      expect(again.body.status).toBe('revoked')
    })
    const rollRevoked = documented(
      'RollKey',
      await call(admin, 'POST', `/manage/issuers/${a.issuerId}/keys/${created.body.id}/roll`),
    )
    expectProblem(rollRevoked, 409, 'key_state_conflict')
  })

  it('shows no secret, no part of one and no hash in any list or audit entry', async () => {
    const lists = await Promise.all(
      ['keys', 'keys?mode=TEST', 'audit?limit=100', 'programs'].map((path) =>
        call(viewer, 'GET', `/manage/issuers/${a.issuerId}/${path}`),
      ),
    )
    const entries = await auditOf(a.issuerId)
    expect(secrets.length).toBeGreaterThanOrEqual(5)
    expectNoSecret([...lists.map((l) => l.text), JSON.stringify(entries), ...seen], secrets)
  })
})

it('writes nothing for another issuer even when an admin of both asks (ids are scoped to the path)', async () => {
  const both = await signUpPerson(`both-${randomUUID()}@example.com`)
  await Promise.all([join(both, a.issuerId, 'admin'), join(both, b.issuerId, 'viewer')])
  // An admin of A, a viewer of B: B's program through A's path is not found, through B's forbidden.
  await expectIssuersUnchanged([a.issuerId, b.issuerId], async () => {
    expectProblem(
      await call(both, 'POST', `/manage/issuers/${a.issuerId}/programs/${b.programs.TEST}/pause`),
      404,
      'program_not_found',
    )
    expectProblem(
      await call(both, 'POST', `/manage/issuers/${b.issuerId}/programs/${b.programs.TEST}/pause`),
      403,
      'forbidden',
    )
    expectProblem(
      await call(
        both,
        'POST',
        `/manage/issuers/${a.issuerId}/keys/${b.keyRecords.LIVE.keyId}/revoke`,
      ),
      404,
      'key_not_found',
    )
  })
  expect((await postGrant(api.baseUrl, b.programs.LIVE, b.keys.LIVE)).status).toBe(201)
})

describe('the JSON bodies of CreateProgram, CreateKey, RollKey and UpdateKey', () => {
  const BODY_ROUTES = CASES.filter((c) => c.body !== undefined)
  const raw = async (c: RouteCase, headers: Record<string, string>, body?: string) =>
    documented(
      c.id,
      await request(api.baseUrl, c.method, c.path(a.issuerId, ownIds()), {
        headers: { ...bearer(await accessTokenFor(admin)), ...headers },
        ...(body === undefined ? {} : { body }),
      }),
    )

  it('covers every route with a body', () => {
    expect(BODY_ROUTES.map((c) => c.id)).toEqual([
      'CreateProgram',
      'CreateKey',
      'RollKey',
      'UpdateKey',
    ])
  })

  it.each(BODY_ROUTES)(
    '$id refuses another media type (415), more than 16 KiB (413) and what is not JSON (400), nothing written',
    async (c) => {
      await expectIssuersUnchanged([a.issuerId], async () => {
        const body = JSON.stringify(c.body)
        expectProblem(
          await raw(c, { 'content-type': 'text/plain' }, body),
          415,
          'unsupported_media_type',
        )
        const large = JSON.stringify({ ...(c.body as object), padding: 'x'.repeat(16 * 1024) })
        expectProblem(
          await raw(c, { 'content-type': 'application/json' }, large),
          413,
          'payload_too_large',
        )
        expectProblem(
          await raw(c, { 'content-type': 'application/json' }, '{"mode": '),
          400,
          'malformed_json',
        )
      })
    },
  )

  it('CreateProgram, CreateKey and UpdateKey refuse no body at all (400); RollKey takes it as {}', async () => {
    for (const c of BODY_ROUTES.filter((x) => x.id !== 'RollKey')) {
      await expectIssuersUnchanged([a.issuerId], async () => {
        expectProblem(await raw(c, { 'content-type': 'application/json' }), 400, 'malformed_json')
      })
    }
    const key = documented(
      'CreateKey',
      await call(admin, 'POST', `/manage/issuers/${a.issuerId}/keys`, { mode: 'TEST' }),
    )
    const rolled = documented(
      'RollKey',
      await request(api.baseUrl, 'POST', `/manage/issuers/${a.issuerId}/keys/${key.body.id}/roll`, {
        headers: bearer(await accessTokenFor(admin)),
      }),
    )
    expect(rolled.status).toBe(201)
  })
})

describe('what DynamoDB misbehaving makes of each route (faults injected into the client)', () => {
  // The local server's handlers use this very client (test/support/runtime.ts): a middleware that
  // throws for the route's own DynamoDB call stands for DynamoDB throttling, holding the items in
  // other transactions, or failing in a way no one planned for.
  const faulty = withDynamoDbFault<Call>
  // The route's own call: a read's query or item read, a change's transaction.
  const COMMANDS: Record<string, string[]> = {
    ListPrograms: ['QueryCommand'],
    GetProgram: ['GetItemCommand', 'BatchGetItemCommand'],
    ListKeys: ['QueryCommand'],
  }
  const mine = CASES.filter((c) => c.id !== 'ListAudit')
  const commandsOf = (c: RouteCase) => COMMANDS[c.id] ?? ['TransactWriteItemsCommand']
  /** A program and a key of their own, in the state the change needs (paused, to resume). */
  const targetsFor = async (c: RouteCase) => {
    const base = `/manage/issuers/${a.issuerId}`
    const program = await call(admin, 'POST', `${base}/programs`, { name: 'Faults', mode: 'TEST' })
    const programId = program.body.id as string
    if (c.id === 'ResumeProgram') await call(admin, 'POST', `${base}/programs/${programId}/pause`)
    const key = await call(admin, 'POST', `${base}/keys`, { mode: 'TEST' })
    return { programId, keyId: key.body.id as string }
  }

  it.each(mine)(
    '$id: throttled is 503 service_unavailable with Retry-After; unexpected is 500 internal_error; nothing written',
    async (c) => {
      const ids = await targetsFor(c)
      await expectIssuersUnchanged([a.issuerId], async () => {
        const throttled = documented(
          c.id,
          await faulty(THROTTLED, commandsOf(c), () => send(owner, c, a.issuerId, ids)),
        )
        expectProblem(throttled, 503, 'service_unavailable')
        expect(throttled.headers.get('retry-after')).toBe('1')
        const broken = documented(
          c.id,
          await faulty(UNEXPECTED, commandsOf(c), () => send(owner, c, a.issuerId, ids)),
        )
        expectProblem(broken, 500, 'internal_error')
        // Nothing internal in the answer.
        expect(broken.text).not.toContain('ValidationException')
      })
    },
  )

  it.each(mine.filter((c) => c.write))(
    '$id: items held by other transactions until the retries run out is 409 request_conflict with Retry-After, nothing written',
    async (c) => {
      // A program and a key of its own, so the change would succeed without the fault.
      const ids = await targetsFor(c)
      await expectIssuersUnchanged([a.issuerId], async () => {
        const held = documented(
          c.id,
          await faulty('TransactionConflictException', ['TransactWriteItemsCommand'], () =>
            send(owner, c, a.issuerId, ids),
          ),
        )
        expectProblem(held, 409, 'request_conflict')
        expect(held.headers.get('retry-after')).toBe('1')
      })
    },
  )
})

it("UpdateKey lowers a key's rate limit (its rules: key-limits.manage.test.ts)", async () => {
  const key = await call(admin, 'POST', `/manage/issuers/${a.issuerId}/keys`, { mode: 'LIVE' })
  const path = `/manage/issuers/${a.issuerId}/keys/${key.body.id}`
  const lowered = documented('UpdateKey', await call(owner, 'PATCH', path, { rateLimit: 50 }))
  expect(lowered.status).toBe(200)
  expect(lowered.body).toEqual({
    ...key.body,
    secret: undefined,
    rateLimit: 50,
    rateLimitIsDefault: false,
  })
})

// Last: what the tests above met, held against what openapi.json lists for these routes.
it('has met every status openapi.json documents for the program and key routes', () => {
  const mine = CASES.filter((c) => c.id !== 'ListAudit')
  const expected = mine.flatMap((c) => documentedStatuses(c.id))
  expect(expected.length).toBeGreaterThan(40)
  expect(expected.filter((line) => !contract.seen.has(line))).toEqual([])
})
