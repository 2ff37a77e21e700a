import { UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { parse as parseWithCsvParse } from 'csv-parse/sync'
import { HOLDER_SLOTS } from '../../functions/domain/figures'
import { valueOfShares } from '../../functions/domain/share-value'
import {
  type Call,
  countRoundTrips,
  expectProblem,
  type Issuer,
  newIssuer,
  postGrant,
  request,
} from '../support/api'
import { useApi } from '../support/api-harness'
import { contractCheck } from '../support/contract-check'
import { type Person, signUpPerson } from '../support/identity'
import { config, documentClient, dynamodb } from '../support/runtime'
import { THROTTLED, UNEXPECTED, withDynamoDbFault } from './dynamodb-faults'
import { addMember, declaredAccess, manageCall, recordAccess } from './grants-support'

/**
 * A program's holders and daily figures for its issuer's people (issue 32), through the local
 * server with real access tokens, over figures the grants table's stream keeps: grants made and
 * moved through the grant API (TEST transitions), the stream drained, then read back.
 */
const api = useApi({ pipeline: { stream: true } })
let a: Issuer
let b: Issuer
let viewer: Person
let adminOfB: Person

const POOL = 1_000
/** Who gets what: accepted amounts, then one more pending grant for some. */
const PLAN = [
  { email: 'ann@example.com', accepted: [40, 2], pending: [5] },
  { email: 'bob@example.com', accepted: [30], pending: [] },
  { email: '+cmd@example.com', accepted: [30], pending: [1] },
  { email: 'cid@example.com', accepted: [7], pending: [] },
  { email: 'dee@example.com', accepted: [], pending: [9] },
  { email: 'eve@example.com', accepted: [1], pending: [] },
]
const REJECTED = 11

const programPath = (issuerId: string, programId: string) =>
  `/manage/issuers/${issuerId}/programs/${programId}`
const holders = (person: Person, query = '', headers: Record<string, string> = {}) =>
  manageCall(
    api.baseUrl,
    person,
    'GET',
    `${programPath(a.issuerId, a.programs.TEST)}/holders${query}`,
    {
      headers,
    },
  )
const daily = (person: Person, query: string) =>
  manageCall(
    api.baseUrl,
    person,
    'GET',
    `${programPath(a.issuerId, a.programs.TEST)}/daily${query}`,
  )

const contract = contractCheck()
const HOLDERS = '/manage/issuers/{issuerId}/programs/{programId}/holders'
const DAILY = '/manage/issuers/{issuerId}/programs/{programId}/daily'
const documented = (path: string, answer: Call) => {
  contract.check(path, 'get', answer, { examples: 'all' })
  return answer
}

/** Sets the program head's value as issue 32's value routes do (undefined: removes it). */
const setValue = (value: Record<string, string> | undefined) =>
  documentClient.send(
    new UpdateCommand({
      TableName: config.tables.programs,
      Key: { programId: a.programs.TEST },
      UpdateExpression: value === undefined ? 'REMOVE #value' : 'SET #value = :value',
      ExpressionAttributeNames: { '#value': 'value' },
      ...(value === undefined ? {} : { ExpressionAttributeValues: { ':value': value } }),
    }),
  )

/** The IAM actions of the DynamoDB calls `act` makes (after the stream's own calls are done). */
const accessOf = async (act: () => Promise<Call>) => {
  await api.pipeline?.drain(60_000)
  const access = recordAccess(dynamodb)
  try {
    expect((await act()).status).toBe(200)
  } finally {
    access.stop()
  }
  return [...access.seen].sort()
}

const grant = async (email: string, amount: number) => {
  const made = await postGrant(api.baseUrl, a.programs.TEST, a.keys.TEST, {
    recipient: { email },
    reason: 'Figures',
    amount,
  })
  expect(made.status).toBe(201)
  return made.body.id as string
}
const move = async (grantId: string, body: unknown) => {
  const moved = await request(
    api.baseUrl,
    'POST',
    `/programs/${a.programs.TEST}/grants/${grantId}/test-transition`,
    {
      headers: { 'x-api-key': a.keys.TEST, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    },
  )
  expect(moved.status).toBe(200)
}

const today = () => new Date().toISOString().slice(0, 10)
/** The day the grants began (UTC). */
let startDay: string

beforeAll(async () => {
  startDay = today()
  ;[a, b] = await Promise.all([newIssuer({ pool: POOL }), newIssuer({ pool: POOL })])
  ;[viewer, adminOfB] = (await Promise.all([signUpPerson(), signUpPerson()])) as [Person, Person]
  await Promise.all([
    addMember(a.issuerId, viewer, 'viewer'),
    addMember(b.issuerId, adminOfB, 'admin'),
  ])
  for (const holder of PLAN) {
    for (const amount of holder.accepted)
      await move(await grant(holder.email, amount), { to: 'accepted' })
    for (const amount of holder.pending) await grant(holder.email, amount)
  }
  await move(await grant('fay@example.com', REJECTED), { to: 'rejected', reason: 'ineligible_age' })
  await api.pipeline?.drain(60_000)
})

/** What PLAN holds, most accepted first, then by address. */
const expected = () =>
  PLAN.map((h) => ({
    email: h.email,
    accepted: h.accepted.reduce((s, n) => s + n, 0),
    pending: h.pending.reduce((s, n) => s + n, 0),
  })).sort((x, y) => y.accepted - x.accepted || (x.email < y.email ? -1 : 1))

const issuedNow = () =>
  PLAN.flatMap((h) => [...h.accepted, ...h.pending]).reduce((s, n) => s + n, 0)

describe('GET .../holders', () => {
  it('a viewer reads the holders, most accepted first, with share of the pool and no value yet', async () => {
    const call = documented(HOLDERS, await holders(viewer, '?limit=100'))
    expect(call.status).toBe(200)
    expect(call.headers.get('cache-control')).toBe('no-store')
    expect(call.body).toEqual({
      object: 'list',
      data: expected().map((h) => ({
        ...h,
        shareOfPool: (h.accepted / POOL).toFixed(4),
        value: null,
      })),
      nextCursor: null,
      tokenValue: null,
      tokenValueCurrency: null,
      pool: { size: POOL, issued: issuedNow(), remaining: POOL - issuedNow() },
    })
  })

  it('pages cover every holder exactly once, in order', async () => {
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const query: string = `?limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`
      const page = documented(HOLDERS, await holders(viewer, query))
      expect(page.status).toBe(200)
      const items = page.body.data as { email: string }[]
      expect(items.length).toBeLessThanOrEqual(2)
      seen.push(...items.map((h) => h.email))
      cursor = page.body.nextCursor as string | null
    } while (cursor !== null)
    expect(seen).toEqual(expected().map((h) => h.email))
  })

  it('values the accepted shares exactly at the value on the program', async () => {
    const value = {
      valueId: 'val_test',
      amount: '0.10',
      currency: 'EUR',
      asOf: today(),
      setAt: new Date().toISOString(),
    }
    await setValue(value)
    try {
      const call = documented(HOLDERS, await holders(viewer, '?limit=100'))
      expect(call.body).toMatchObject({ tokenValue: '0.10', tokenValueCurrency: 'EUR' })
      const items = call.body.data as { accepted: number; value: string }[]
      expect(items.map((h) => h.value)).toEqual(
        expected().map((h) => valueOfShares(h.accepted, '0.10')),
      )
      expect(items[0]?.value).toBe('4.20')

      // The CSV: every holder, formula-safe, read back by csv-parse.
      const csv = await holders(viewer, '', { accept: 'text/csv' })
      expect(csv.status).toBe(200)
      expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present')
      expect(csv.headers.get('content-disposition')).toBe(
        `attachment; filename="holders-${a.programs.TEST}.csv"`,
      )
      expect(csv.headers.get('x-next-cursor')).toBeNull()
      const rows = parseWithCsvParse(csv.text, { delimiter: ',' }) as string[][]
      expect(rows[0]).toEqual([
        'email',
        'accepted',
        'pending',
        'share_of_pool',
        'value',
        'currency',
      ])
      expect(rows.slice(1)).toEqual(
        expected().map((h) => [
          h.email.startsWith('+') ? `'${h.email}` : h.email,
          String(h.accepted),
          String(h.pending),
          (h.accepted / POOL).toFixed(4),
          valueOfShares(h.accepted, '0.10'),
          'EUR',
        ]),
      )
      // A spreadsheet that splits on ';' sees no cell that starts like a formula either.
      const semicolon = parseWithCsvParse(csv.text, {
        delimiter: ';',
        relax_quotes: true,
        relax_column_count: true,
      }) as string[][]
      for (const cell of [...rows.flat(), ...semicolon.flat()]) {
        expect(cell).not.toMatch(/^[\p{White_Space}\p{Cf}]*[=+\-@\t\r]/u)
      }
    } finally {
      await setValue(undefined)
    }
  })

  it('a cursor no page gave, or a bad limit: 400', async () => {
    expectProblem(
      documented(HOLDERS, await holders(viewer, '?cursor=not-a-cursor')),
      400,
      'validation_failed',
    )
    expectProblem(documented(HOLDERS, await holders(viewer, '?limit=0')), 400, 'validation_failed')
    expectProblem(documented(HOLDERS, await holders(viewer, '?limt=5')), 400, 'validation_failed')
  })

  it("another issuer's program, a missing one, a malformed id: the same 404", async () => {
    const paths = [
      `${programPath(b.issuerId, a.programs.TEST)}/holders`,
      `${programPath(b.issuerId, 'prg_00000000000000000000000000')}/holders`,
      `${programPath(b.issuerId, 'nope')}/holders`,
    ]
    for (const path of paths) {
      expectProblem(await manageCall(api.baseUrl, adminOfB, 'GET', path), 404, 'program_not_found')
    }
    // Not a member of a at all.
    expectProblem(
      await manageCall(
        api.baseUrl,
        adminOfB,
        'GET',
        `${programPath(a.issuerId, a.programs.TEST)}/holders`,
      ),
      404,
      'issuer_not_found',
    )
  })

  it('reads what its IAM declares (the byAccepted index Query included), and nothing else', async () => {
    expect(await accessOf(() => holders(viewer, '?limit=2'))).toEqual(
      [...declaredAccess('ListProgramHolders')].sort(),
    )
  })
})

describe('GET .../daily', () => {
  it('every day of the range, zeros before the grants, the totals and the pool line', async () => {
    // From the day before the grants were made to today (two days, three if midnight passed).
    const from = new Date(Date.parse(startDay) - 86_400_000).toISOString().slice(0, 10)
    const to = today()
    const call = documented(DAILY, await daily(viewer, `?from=${from}&to=${to}`))
    expect(call.status).toBe(200)
    const body = call.body as {
      days: Record<string, number | string | null>[]
      totals: Record<string, number>
    }
    expect(call.body).toMatchObject({
      object: 'daily_figures',
      programId: a.programs.TEST,
      from,
      to,
      pool: { size: POOL, issued: issuedNow(), remaining: POOL - issuedNow() },
    })
    expect(body.days.map((d) => d.date)[0]).toBe(from)
    expect(body.days.at(-1)?.date).toBe(to)
    const accepted = PLAN.flatMap((h) => h.accepted)
    const made = PLAN.flatMap((h) => [...h.accepted, ...h.pending]).length + 1
    // The day before: nothing, and the whole pool left at its end.
    const { date: _, remainingAtEnd, ...before } = body.days[0] as Record<string, unknown>
    expect(Object.values(before).every((n) => n === 0)).toBe(true)
    expect(remainingAtEnd).toBe(POOL)
    expect(body.days.at(-1)?.remainingAtEnd).toBe(POOL - issuedNow())
    expect(body.totals).toMatchObject({
      made,
      accepted: accepted.length,
      ineligibleAge: 1,
      declined: 0,
      expired: 0,
      canceled: 0,
      sharesIssued: issuedNow() + REJECTED,
      sharesAccepted: accepted.reduce((s, n) => s + n, 0),
      sharesReturned: REJECTED,
    })
    // The totals are the days' sums.
    for (const [name, total] of Object.entries(body.totals)) {
      expect(body.days.reduce((sum, d) => sum + (d[name] as number), 0)).toBe(total)
    }
  })

  it('bad dates and ranges: 400, each named', async () => {
    const cases = [
      ['', ['from', 'to']],
      ['?from=2026-02-30&to=2026-03-01', ['from']],
      ['?from=2026-03-02&to=2026-03-01', ['to']],
      ['?from=2025-01-01&to=2026-01-02', ['to']],
      ['?from=2026-01-01&to=2026-01-02&days=3', ['days']],
    ] as const
    for (const [query, fields] of cases) {
      const call = documented(DAILY, await daily(viewer, query))
      expectProblem(call, 400, 'validation_failed')
      expect((call.body.errors as { field: string }[]).map((e) => e.field)).toEqual(fields)
    }
  })

  it("another issuer's program: 404", async () => {
    const path = `${programPath(b.issuerId, a.programs.TEST)}/daily?from=2026-01-01&to=2026-01-02`
    expectProblem(await manageCall(api.baseUrl, adminOfB, 'GET', path), 404, 'program_not_found')
  })

  it('reads what its IAM declares, and nothing else', async () => {
    expect(await accessOf(() => daily(viewer, `?from=${today()}&to=${today()}`))).toEqual(
      [...declaredAccess('GetProgramDaily')].sort(),
    )
  })
})

describe('what a read costs', () => {
  /** The DynamoDB calls `act` sends, by command, after the stream's own calls are done. */
  const callsOf = async (act: () => Promise<Call>) => {
    await api.pipeline?.drain(60_000)
    const counter = countRoundTrips()
    try {
      expect((await act()).status).toBe(200)
    } finally {
      counter.stop()
    }
    return counter.calls.map((c) => c.replace(/Command$/, '')).sort()
  }
  const HEAD = ['BatchGetItem', 'GetItem', 'GetItem'] // the membership, the program, its shards

  it('a page of holders: the program, then one Query per holder slot, never the grants', async () => {
    expect(await callsOf(() => holders(viewer, '?limit=2'))).toEqual(
      [...HEAD, ...Array<string>(HOLDER_SLOTS).fill('Query')].sort(),
    )
  })

  it('90 days of figures: the program, then one Query', async () => {
    const to = today()
    const from = new Date(Date.parse(to) - 89 * 86_400_000).toISOString().slice(0, 10)
    expect(await callsOf(() => daily(viewer, `?from=${from}&to=${to}`))).toEqual(
      [...HEAD, 'Query'].sort(),
    )
  })
})

describe('when the figures cannot be read', () => {
  const reads = [
    [HOLDERS, () => holders(viewer, '?limit=2')],
    [DAILY, () => daily(viewer, `?from=${today()}&to=${today()}`)],
  ] as const

  it('throttled: 503 with Retry-After; failed otherwise: 500 naming nothing inside', async () => {
    await api.pipeline?.drain(60_000)
    for (const [path, read] of reads) {
      const throttled = documented(path, await withDynamoDbFault(THROTTLED, ['QueryCommand'], read))
      expectProblem(throttled, 503, 'service_unavailable')
      expect(throttled.headers.get('retry-after')).toMatch(/^[0-9]+$/)
      const broken = documented(path, await withDynamoDbFault(UNEXPECTED, ['QueryCommand'], read))
      expectProblem(broken, 500, 'internal_error')
      expect(broken.text).not.toContain(UNEXPECTED)
    }
  })

  it('without a token: 401 from the gateway', async () => {
    const base = programPath(a.issuerId, a.programs.TEST)
    for (const [path, url] of [
      [HOLDERS, `${base}/holders`],
      [DAILY, `${base}/daily?from=${today()}&to=${today()}`],
    ] as const) {
      const answer = documented(path, await manageCall(api.baseUrl, undefined, 'GET', url))
      expect([answer.status, answer.body]).toEqual([401, { message: 'Unauthorized' }])
    }
  })
})
