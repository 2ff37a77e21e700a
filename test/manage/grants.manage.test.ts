import { GetCommand } from '@aws-sdk/lib-dynamodb'
import { parse as parseWithCsvParse } from 'csv-parse/sync'
import { AccessCache } from '../../functions/core/access-cache'
import { makeGrantTokens } from '../../functions/core/grant-tokens'
import { parseCsv } from '../../functions/domain/csv'
import type { GrantRecord } from '../../functions/domain/grant'
import { LIMITS } from '../../functions/domain/grant-request.schema'
import { newId } from '../../functions/domain/ids'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import {
  type Call,
  expectNothingWritten,
  expectProblem,
  grantBody,
  type Issuer,
  newIssuer,
  postGrant,
  programState,
  setProgramStatus,
} from '../support/api'
import { useApi } from '../support/api-harness'
import { contractCheck } from '../support/contract-check'
import { bearer, idTokenFor, type Person, signUpPerson } from '../support/identity'
import { config, documentClient, dynamodb, wallClock } from '../support/runtime'
import { THROTTLED, UNEXPECTED, withDynamoDbFault } from './dynamodb-faults'
import { addMember, auditLog, declaredAccess, manageCall, recordAccess } from './grants-support'

/**
 * A program's grants for its issuer's people, through the local server with real access tokens
 * from the run's Cognito emulator: sending one (admin), listing them and exporting them as CSV
 * (viewer); who may do what, and that a refused call writes nothing.
 */
const api = useApi()
let a: Issuer
let b: Issuer
let admin: Person
let viewer: Person
let adminOfB: Person

beforeAll(async () => {
  ;[a, b] = await Promise.all([newIssuer({ pool: 1_000 }), newIssuer()])
  ;[admin, viewer, adminOfB] = (await Promise.all([
    signUpPerson(),
    signUpPerson(),
    signUpPerson(),
  ])) as [Person, Person, Person]
  await Promise.all([
    addMember(a.issuerId, admin, 'admin'),
    addMember(a.issuerId, viewer, 'viewer'),
    addMember(b.issuerId, adminOfB, 'admin'),
  ])
})

const grantsPath = (issuerId: string, programId: string) =>
  `/manage/issuers/${issuerId}/programs/${programId}/grants`
const send = (
  person: Person | undefined,
  issuerId: string,
  programId: string,
  body: unknown,
  headers: Record<string, string> = {},
) => manageCall(api.baseUrl, person, 'POST', grantsPath(issuerId, programId), { body, headers })
const list = (
  person: Person,
  issuerId: string,
  programId: string,
  query = '',
  headers: Record<string, string> = {},
) =>
  manageCall(api.baseUrl, person, 'GET', `${grantsPath(issuerId, programId)}${query}`, { headers })

const storedGrant = async (grantId: string) =>
  (
    await documentClient.send(
      new GetCommand({ TableName: config.tables.grants, Key: { grantId }, ConsistentRead: true }),
    )
  ).Item as GrantRecord | undefined

// The contract (openapi.json) against these answers: each status listed, each body its schema's.
const GRANTS = '/manage/issuers/{issuerId}/programs/{programId}/grants'
const contract = contractCheck()
const documented = (method: 'get' | 'post', answer: Call) => {
  contract.check(GRANTS, method, answer, { examples: 'all' })
  return answer
}
/** A CSV answer against the document (the checker reads its text, by its media type). */
const documentedCsv = (answer: Call) => {
  contract.check(GRANTS, 'get', answer)
  return answer
}

/** Runs `act` and asserts it wrote no grant, moved no counter and wrote no audit entry. */
const expectNoChange = async (issuerId: string, programId: string, act: () => Promise<void>) => {
  const audit = (await auditLog(issuerId)).length
  await expectNothingWritten(programId, act)
  expect((await auditLog(issuerId)).length).toBe(audit)
}

describe('POST .../programs/{programId}/grants: an admin sends one grant', () => {
  it('grants through the same rules and transaction as the API, records the sender, and audits it in the same write', async () => {
    const before = await programState(a.programs.TEST)
    const call = documented(
      'post',
      await send(admin, a.issuerId, a.programs.TEST, {
        recipient: { email: '  Bob@Example.com ', name: 'Bob' },
        reason: 'Quarterly award',
        amount: 5,
      }),
    )
    expect(call.status).toBe(201)
    expect(call.headers.get('cache-control')).toBe('no-store')
    // Where the management API shows it: that GET answers the same grant.
    const location = call.headers.get('location') as string
    expect(location).toBe(`/manage/issuers/${a.issuerId}/grants/${call.body.id}`)
    const shown = await manageCall(api.baseUrl, viewer, 'GET', location)
    expect([shown.status, shown.body.id]).toEqual([200, call.body.id])
    expect(call.body).toEqual({
      id: expect.stringMatching(/^gr_[0-9a-z]{26}$/),
      object: 'grant',
      programId: a.programs.TEST,
      mode: 'TEST',
      recipient: { email: 'bob@example.com', name: 'Bob' },
      reason: 'Quarterly award',
      amount: 5,
      status: 'reserved',
      createdAt: expect.any(String),
      source: 'console',
      sentBy: { sub: admin.sub, email: admin.email },
      keyId: null,
      batch: null,
      idempotencyKey: null,
      // Made in the console: no integrator API request (the request log) made it.
      requestId: null,
      // Its life so far: nothing yet but the offer window (the program's, 30 days).
      rejectionReason: null,
      expiresAt: new Date(Date.parse(String(call.body.createdAt)) + 30 * 86_400_000).toISOString(),
      delivery: {
        state: 'pending',
        sends: 0,
        lastSentAt: null,
        resendRequestedAt: null,
        remindedAt: null,
      },
      identity: null,
      acceptance: null,
      history: [],
    })
    const stored = await storedGrant(call.body.id as string)
    expect(stored).toMatchObject({
      issuerId: a.issuerId,
      sentBy: { sub: admin.sub, email: admin.email },
    })
    expect(stored?.keyId).toBeUndefined()
    const after = await programState(a.programs.TEST)
    expect(after.issued).toBe(before.issued + 5)
    expect(after.program?.remaining).toBe(1_000 - after.issued)
    const entry = (await auditLog(a.issuerId)).find((e) => e.target.id === call.body.id)
    expect(entry).toMatchObject({
      action: 'grant.send',
      actor: { kind: 'person', sub: admin.sub, email: admin.email },
      target: { type: 'grant', id: call.body.id },
      requestId: call.headers.get('x-request-id'),
      details: {
        programId: a.programs.TEST,
        mode: 'TEST',
        amount: 5,
        recipient: 'bob@example.com',
      },
    })
    // The integrator's view of the same grant shows nothing of who sent it.
    const read = await manageCall(
      api.baseUrl,
      undefined,
      'GET',
      `/programs/${a.programs.TEST}/grants/${call.body.id}`,
      {
        headers: { 'x-api-key': a.keys.TEST },
      },
    )
    expect(read.status).toBe(200)
    expect(read.body.sentBy).toBeUndefined()
  })

  it('replays a retry with the same Idempotency-Key (one grant, one audit entry) and refuses the key with another grant', async () => {
    const body = grantBody({ amount: 2, recipient: { email: 'carol@example.com' } })
    const key = { 'idempotency-key': `console-${Math.random()}` }
    const first = await send(admin, a.issuerId, a.programs.LIVE, body, key)
    expect(first.status).toBe(201)
    const audit = (await auditLog(a.issuerId)).length
    await expectNothingWritten(a.programs.LIVE, async () => {
      const again = documented('post', await send(admin, a.issuerId, a.programs.LIVE, body, key))
      expect(again.status).toBe(201)
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(again.body).toEqual(first.body)
      expectProblem(
        documented(
          'post',
          await send(admin, a.issuerId, a.programs.LIVE, { ...body, amount: 3 }, key),
        ),
        422,
        'idempotency_key_reused',
      )
    })
    expect((await auditLog(a.issuerId)).length).toBe(audit)
    expect(first.body.idempotencyKey).toBe(key['idempotency-key'])
  })

  it("scopes the Idempotency-Key to issuer and mode, as the API's: the API's grant with the key is the same grant", async () => {
    const key = `shared-${Math.random()}`
    const body = grantBody({ amount: 1, recipient: { email: 'dave@example.com' } })
    const viaApi = await postGrant(api.baseUrl, a.programs.TEST, a.keys.TEST, body, {
      'idempotency-key': key,
    })
    expect(viaApi.status).toBe(201)
    const viaConsole = await send(admin, a.issuerId, a.programs.TEST, body, {
      'idempotency-key': key,
    })
    expect(viaConsole.status).toBe(201)
    expect(viaConsole.headers.get('idempotent-replayed')).toBe('true')
    expect(viaConsole.body).toMatchObject({
      id: viaApi.body.id,
      source: 'api',
      keyId: a.keyRecords.TEST.keyId,
      sentBy: null,
    })
  })

  it('refuses a viewer with 403 forbidden, writing nothing', async () => {
    await expectNoChange(a.issuerId, a.programs.TEST, async () => {
      expectProblem(
        documented('post', await send(viewer, a.issuerId, a.programs.TEST, grantBody())),
        403,
        'forbidden',
      )
    })
  })

  it("answers another issuer's program exactly like a missing one (404), and a stranger's issuer 404, writing nothing", async () => {
    for (const program of [b.programs.TEST, b.programs.LIVE]) {
      await expectNoChange(b.issuerId, program, async () => {
        const foreign = documented('post', await send(admin, a.issuerId, program, grantBody()))
        const missing = await send(admin, a.issuerId, newId('program'), grantBody())
        expectProblem(foreign, 404, 'program_not_found')
        expect({ ...foreign.body, requestId: 0, detail: 0 }).toEqual({
          ...missing.body,
          requestId: 0,
          detail: 0,
        })
        expectProblem(
          await send(admin, a.issuerId, 'prg_nope', grantBody()),
          404,
          'program_not_found',
        )
        // B's own admin on A's path: not a member of A.
        expectProblem(
          documented('post', await send(adminOfB, a.issuerId, a.programs.TEST, grantBody())),
          404,
          'issuer_not_found',
        )
      })
    }
    expectProblem(
      documented('get', await list(admin, a.issuerId, b.programs.TEST)),
      404,
      'program_not_found',
    )
    expectProblem(
      documented('get', await list(adminOfB, a.issuerId, a.programs.TEST)),
      404,
      'issuer_not_found',
    )
  })

  it('leaves a request without a token (401) or with an ID token (403) to the gateway; refuses a body that is not JSON (415) or too large (413)', async () => {
    await expectNoChange(a.issuerId, a.programs.TEST, async () => {
      const path = grantsPath(a.issuerId, a.programs.TEST)
      const none = documented(
        'post',
        await send(undefined, a.issuerId, a.programs.TEST, grantBody()),
      )
      expect({ status: none.status, body: none.body }).toEqual({
        status: 401,
        body: { message: 'Unauthorized' },
      })
      const idToken = bearer(await idTokenFor(admin))
      for (const method of ['GET', 'POST'] as const) {
        const id = documented(
          method === 'GET' ? 'get' : 'post',
          await manageCall(api.baseUrl, undefined, method, path, {
            headers: idToken,
            ...(method === 'POST' ? { body: grantBody() } : {}),
          }),
        )
        expect({ status: id.status, body: id.body }).toEqual({
          status: 403,
          body: { message: 'Forbidden' },
        })
      }
      expect(documented('get', await manageCall(api.baseUrl, undefined, 'GET', path)).status).toBe(
        401,
      )
      expectProblem(
        documented(
          'post',
          await manageCall(api.baseUrl, admin, 'POST', path, {
            body: 'amount=1',
            headers: { 'content-type': 'text/plain' },
          }),
        ),
        415,
        'unsupported_media_type',
      )
      expectProblem(
        documented(
          'post',
          await send(admin, a.issuerId, a.programs.TEST, {
            ...grantBody(),
            reason: 'x'.repeat(LIMITS.maxBodyBytes),
          }),
        ),
        413,
        'payload_too_large',
      )
    })
  })

  it('applies the grant rules: invalid body 400, paused program 409, pool exhausted 409, each writing nothing', async () => {
    const small = await newIssuer({ pool: 3 })
    await addMember(small.issuerId, admin, 'admin')
    await expectNoChange(small.issuerId, small.programs.TEST, async () => {
      const bad = documented(
        'post',
        await send(admin, small.issuerId, small.programs.TEST, {
          recipient: { email: 'x' },
          reason: '',
          amount: 0,
          extra: 1,
        }),
      )
      expectProblem(bad, 400, 'validation_failed')
      expect((bad.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual(
        ['amount', 'extra', 'reason', 'recipient.email'].sort(),
      )
      expectProblem(
        documented(
          'post',
          await send(admin, small.issuerId, small.programs.TEST, grantBody({ amount: 4 })),
        ),
        409,
        'pool_exhausted',
      )
      expectProblem(
        await send(admin, small.issuerId, small.programs.TEST, grantBody(), {
          'idempotency-key': 'k'.repeat(256),
        }),
        400,
        'invalid_idempotency_key',
      )
    })
    await setProgramStatus(small.programs.LIVE, 'paused')
    await expectNoChange(small.issuerId, small.programs.LIVE, async () => {
      expectProblem(
        documented('post', await send(admin, small.issuerId, small.programs.LIVE, grantBody())),
        409,
        'program_inactive',
      )
    })
  })

  it('reads what its IAM declares, and nothing else', async () => {
    const access = recordAccess(dynamodb)
    try {
      expect((await send(admin, a.issuerId, a.programs.TEST, grantBody())).status).toBe(201)
    } finally {
      access.stop()
    }
    const declared = declaredAccess('SendGrant')
    for (const line of access.seen) expect(declared).toContain(line)
  })
})

describe('GET .../programs/{programId}/grants: the listing and the CSV export', () => {
  let issuer: Issuer
  const names = [
    '=HYPERLINK("http://evil.example","click")',
    '+1 555',
    '-10',
    '@SUM(A1)',
    'Ann, "the boss"',
    'Zoë Ünal',
  ]
  const ids: string[] = []
  beforeAll(async () => {
    issuer = await newIssuer()
    await addMember(issuer.issuerId, admin, 'admin')
    await addMember(issuer.issuerId, viewer, 'viewer')
    for (const [i, name] of names.entries()) {
      const call =
        i % 2 === 0
          ? await send(
              admin,
              issuer.issuerId,
              issuer.programs.TEST,
              grantBody({ amount: i + 1, recipient: { email: `p${i}@example.com`, name } }),
            )
          : await postGrant(
              api.baseUrl,
              issuer.programs.TEST,
              issuer.keys.TEST,
              grantBody({
                amount: i + 1,
                recipient: { email: `p${i}@example.com`, name },
                reason: `=cmd|' /C calc'!A0 ${i}`,
              }),
            )
      expect(call.status).toBe(201)
      ids.push(call.body.id as string)
      // The next createdAt 3 ms later on the functions' clock: newest first is a strict order.
      wallClock.advance(3)
    }
  })

  it('lists newest first for a viewer, with who sent each grant, paged with a cursor', async () => {
    const page = documented(
      'get',
      await list(viewer, issuer.issuerId, issuer.programs.TEST, '?limit=4'),
    )
    expect(page.status).toBe(200)
    expect(page.headers.get('cache-control')).toBe('no-store')
    const data = page.body.data as Record<string, unknown>[]
    expect(data.map((g) => g.id)).toEqual([...ids].reverse().slice(0, 4))
    expect(data[0]).toMatchObject({
      source: 'api',
      keyId: issuer.keyRecords.TEST.keyId,
      sentBy: null,
    })
    expect(data[1]).toMatchObject({
      source: 'console',
      keyId: null,
      sentBy: { sub: admin.sub, email: admin.email },
    })
    const rest = documented(
      'get',
      await list(
        viewer,
        issuer.issuerId,
        issuer.programs.TEST,
        `?limit=4&cursor=${page.body.nextCursor}`,
      ),
    )
    expect((rest.body.data as { id: string }[]).map((g) => g.id)).toEqual(
      [...ids].reverse().slice(4),
    )
    expect(rest.body.nextCursor).toBeNull()
    const ann = await list(
      viewer,
      issuer.issuerId,
      issuer.programs.TEST,
      '?recipient=P2%40EXAMPLE.com',
    )
    expect((ann.body.data as { id: string }[]).map((g) => g.id)).toEqual([ids[2]])
    for (const query of ['?cursor=x', '?limit=101', '?recipient=nobody', '?status=reserved']) {
      expectProblem(
        documented('get', await list(viewer, issuer.issuerId, issuer.programs.TEST, query)),
        400,
        'validation_failed',
      )
    }
  })

  it('exports CSV with Accept: text/csv: quoted where needed, formulas neutralised with a leading quote', async () => {
    const call = documentedCsv(
      await list(viewer, issuer.issuerId, issuer.programs.TEST, '', { accept: 'text/csv' }),
    )
    expect(call.status).toBe(200)
    expect(call.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present')
    expect(call.headers.get('content-disposition')).toBe(
      `attachment; filename="grants-${issuer.programs.TEST}.csv"`,
    )
    expect(call.headers.get('x-next-cursor')).toBeNull()
    expect(call.text.endsWith('\r\n')).toBe(true)
    const [header, ...rows] = parseCsv(call.text)
    expect(header?.fields.slice(0, 6)).toEqual([
      'id',
      'created_at',
      'recipient_email',
      'recipient_name',
      'amount',
      'reason',
    ])
    expect(rows.map((r) => r.fields[0])).toEqual([...ids].reverse())
    const byId = new Map(rows.map((r) => [r.fields[0], r.fields]))
    const nameOf = (i: number) => byId.get(ids[i])?.[3]
    expect(nameOf(0)).toBe(`'=HYPERLINK("http://evil.example","click")`)
    expect(nameOf(1)).toBe("'+1 555")
    expect(nameOf(2)).toBe("'-10")
    expect(nameOf(3)).toBe("'@SUM(A1)")
    expect(nameOf(4)).toBe('Ann, "the boss"')
    expect(nameOf(5)).toBe('Zoë Ünal')
    expect(byId.get(ids[1])?.[5]).toBe(`'=cmd|' /C calc'!A0 1`)
    // On the wire: the quote-doubling of RFC 4180.
    expect(call.text).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`)
    expect(call.text).toContain('"Ann, ""the boss"""')
    expect(byId.get(ids[0])?.slice(8, 10)).toEqual(['console', admin.email])
    expect(byId.get(ids[1])?.slice(8, 11)).toEqual(['api', '', issuer.keyRecords.TEST.keyId])
  })

  it('pages the export: the next cursor in x-next-cursor and Link, the header row on the first page only', async () => {
    const first = documentedCsv(
      await list(viewer, issuer.issuerId, issuer.programs.TEST, '?limit=4', { accept: 'text/csv' }),
    )
    const cursor = first.headers.get('x-next-cursor') as string
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
    const link = first.headers.get('link') as string
    expect(link).toBe(
      `<${grantsPath(issuer.issuerId, issuer.programs.TEST)}?cursor=${cursor}&limit=4>; rel="next"`,
    )
    const second = documentedCsv(
      await list(
        viewer,
        issuer.issuerId,
        issuer.programs.TEST,
        link.slice(link.indexOf('?'), link.indexOf('>')),
        { accept: 'text/csv' },
      ),
    )
    expect(second.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=absent')
    expect(second.headers.get('x-next-cursor')).toBeNull()
    const whole = await list(viewer, issuer.issuerId, issuer.programs.TEST, '', {
      accept: 'text/csv',
    })
    expect(first.text + second.text).toBe(whole.text)
    expectProblem(
      documented(
        'get',
        await list(viewer, issuer.issuerId, issuer.programs.TEST, '?limit=1001', {
          accept: 'text/csv',
        }),
      ),
      400,
      'validation_failed',
    )
  })

  it('reads what its IAM declares (the index Query included), and nothing else', async () => {
    const access = recordAccess(dynamodb)
    try {
      expect((await list(viewer, issuer.issuerId, issuer.programs.TEST, '?limit=2')).status).toBe(
        200,
      )
    } finally {
      access.stop()
    }
    expect([...access.seen].sort()).toEqual([...declaredAccess('ListGrants')].sort())
  })
})

/**
 * How a cell starts that a spreadsheet would run as a formula (OWASP's list), after any white
 * space and format characters, which some spreadsheets skip. Cell by cell: test/unit/csv.test.ts.
 */
const FORMULA_LIKE = /^[\p{White_Space}\p{Cf}]*[=+\-@\t\r]/u

describe("the CSV export read in a ',' and a ';' locale", () => {
  // Names and reasons the grant API accepts, each hiding a formula behind a ';'.
  const hostile = [
    ["Bob;=cmd|' /C calc'!A0", "=cmd|' /C calc'!A0"],
    ['Ann;+1;-2;@SUM(A1)', 'reason;=1+2'],
    ['Eve;"=HYPERLINK(""http://evil.example"")', 'x;;-5'],
    ['Zoë;', '@ends with;'],
    // Behind white space and format characters, which some spreadsheets skip before looking.
    [' =1;\u00A0=1+1', '\u200B@x;\uFEFF-1'],
  ] as const
  let issuer: Issuer
  beforeAll(async () => {
    issuer = await newIssuer()
    await addMember(issuer.issuerId, viewer, 'viewer')
    for (const [i, [name, reason]] of hostile.entries()) {
      const call = await postGrant(
        api.baseUrl,
        issuer.programs.TEST,
        issuer.keys.TEST,
        grantBody({ amount: i + 1, recipient: { email: `semi${i}@example.com`, name }, reason }),
      )
      expect(call.status).toBe(201)
    }
  })

  it('quotes every cell, and no cell of either reading starts with =, +, -, @, tab or CR, not even behind white space', async () => {
    const call = documentedCsv(
      await list(viewer, issuer.issuerId, issuer.programs.TEST, '', { accept: 'text/csv' }),
    )
    expect(call.status).toBe(200)
    // Every record is quoted cells separated by commas, nothing else.
    for (const line of call.text.split('\r\n').slice(0, -1)) {
      expect(line).toMatch(/^"(?:[^"]|"")*"(?:,"(?:[^"]|"")*")*$/)
    }
    expect(call.text).toContain(`"Bob;'=cmd|' /C calc'!A0"`)
    const comma: string[][] = parseWithCsvParse(call.text, { delimiter: ',' })
    const semicolon: string[][] = parseWithCsvParse(call.text, {
      delimiter: ';',
      relax_quotes: true,
      relax_column_count: true,
    })
    expect(comma).toHaveLength(hostile.length + 1)
    expect(semicolon.flat().length).toBeGreaterThan(hostile.length + 1)
    for (const cell of [...comma.flat(), ...semicolon.flat()]) {
      expect(cell).not.toMatch(FORMULA_LIKE)
    }
    // The ',' reading is the file as meant: the text, a quote in front of each formula.
    const byEmail = new Map(comma.slice(1).map((cells) => [cells[2], cells]))
    expect(byEmail.get('semi0@example.com')?.[3]).toBe("Bob;'=cmd|' /C calc'!A0")
    expect(byEmail.get('semi0@example.com')?.[5]).toBe("'=cmd|' /C calc'!A0")
    expect(byEmail.get('semi1@example.com')?.[3]).toBe("Ann;'+1;'-2;'@SUM(A1)")
    expect(byEmail.get('semi2@example.com')?.[3]).toBe('Eve;\'"=HYPERLINK(""http://evil.example"")')
    expect(byEmail.get('semi3@example.com')?.slice(3, 6)).toEqual(["Zoë;'", '4', "'@ends with;'"])
    expect(byEmail.get('semi4@example.com')?.slice(3, 6)).toEqual([
      "' =1;'\u00A0=1+1",
      '5',
      "'\u200B@x;'\uFEFF-1",
    ])
  })
})

describe('the use case in-process: one core for both doors', () => {
  it('member path: reads the program for its mode, refuses another issuer as a missing program', async () => {
    const store = new DynamoDbGrantStore(documentClient, config.tables)
    const grant = makeGrantTokens({ store, access: new AccessCache(store) })
    const member = { issuerId: a.issuerId, sentBy: { sub: admin.sub, email: admin.email } }
    const { grant: made } = await grant({
      member,
      programId: a.programs.LIVE,
      idempotencyKey: undefined,
      body: grantBody(),
    })
    expect(made).toMatchObject({ mode: 'LIVE', issuerId: a.issuerId, sentBy: member.sentBy })
    await expect(
      grant({ member, programId: b.programs.LIVE, idempotencyKey: undefined, body: grantBody() }),
    ).rejects.toMatchObject({
      code: 'program_not_found',
    })
  })
})

describe('openapi.json', () => {
  it('answers DynamoDB throttling 503 service_unavailable and an unexpected failure 500 internal_error on both routes, writing nothing', async () => {
    await expectNoChange(a.issuerId, a.programs.TEST, async () => {
      for (const [method, commands, act] of [
        ['get', ['QueryCommand'], () => list(viewer, a.issuerId, a.programs.TEST)],
        [
          'post',
          ['TransactWriteItemsCommand'],
          () => send(admin, a.issuerId, a.programs.TEST, grantBody()),
        ],
      ] as const) {
        // The route's own read or transaction; the membership and program reads go through.
        const throttled = documented(method, await withDynamoDbFault(THROTTLED, commands, act))
        expectProblem(throttled, 503, 'service_unavailable')
        const broken = documented(method, await withDynamoDbFault(UNEXPECTED, commands, act))
        expectProblem(broken, 500, 'internal_error')
        expect(broken.text).not.toContain(UNEXPECTED)
      }
    })
  })

  it('documents every status both routes answered above (the checks above)', () => {
    const expected = [
      ...[200, 400, 401, 403, 404, 500, 503].map((s) => `get ${GRANTS} ${s}`),
      ...[201, 400, 401, 403, 404, 409, 413, 415, 422, 500, 503].map((s) => `post ${GRANTS} ${s}`),
    ]
    expect([...contract.seen].filter((seen) => expected.includes(seen)).sort()).toEqual(
      expected.sort(),
    )
  })
})
