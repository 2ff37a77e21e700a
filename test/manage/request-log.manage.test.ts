import { UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { newId } from '../../functions/domain/ids'
import { newRequestId } from '../../functions/domain/request-id'
import type { RequestLogEntry } from '../../functions/domain/request-log'
import { type Call, expectProblem, type Issuer, newIssuer, postGrant } from '../support/api'
import { useApi } from '../support/api-harness'
import { contractCheck } from '../support/contract-check'
import { type Person, signUpPerson } from '../support/identity'
import { config, documentClient, dynamodb } from '../support/runtime'
import { addMember, declaredAccess, manageCall, recordAccess } from './grants-support'
import { type ModeKeys, makeEntries, putRequestLog } from './request-log-support'

/**
 * The request log's routes (issue 33) through the local server with the Cognito emulator's
 * tokens, over entries put in the table in the layout the writer uses: newest first across every
 * partition of both modes, each filter and their combinations, exact paging, and another issuer's
 * log invisible.
 */
const api = useApi()
let a: Issuer
let b: Issuer
let viewer: Person
let memberOfB: Person
const COUNT = 72
let entries: RequestLogEntry[] = []
let keys: ModeKeys
let othersEntries: RequestLogEntry[] = []

const newestFirst = (list: readonly RequestLogEntry[]) =>
  [...list].sort((x, y) => (x.requestId < y.requestId ? 1 : -1)).map((e) => e.requestId)

beforeAll(async () => {
  ;[a, b] = await Promise.all([newIssuer(), newIssuer()])
  ;[viewer, memberOfB] = (await Promise.all([signUpPerson(), signUpPerson()])) as [Person, Person]
  await Promise.all([
    addMember(a.issuerId, viewer, 'viewer'),
    addMember(b.issuerId, memberOfB, 'viewer'),
  ])
  keys = {
    TEST: [a.keyRecords.TEST.keyId, newId('apiKey')],
    LIVE: [a.keyRecords.LIVE.keyId],
  }
  const start = Date.now() - 90 * 60_000
  entries = makeEntries(a.issuerId, keys, COUNT, start)
  othersEntries = makeEntries(
    b.issuerId,
    { TEST: [b.keyRecords.TEST.keyId], LIVE: [b.keyRecords.LIVE.keyId] },
    12,
    start,
  )
  await putRequestLog([...entries, ...othersEntries])
})

const contract = contractCheck()
const LIST = '/manage/issuers/{issuerId}/requests'
const ONE = '/manage/issuers/{issuerId}/requests/{requestId}'
const documented = (path: string, answer: Call) => {
  contract.check(path, 'get', answer)
  return answer
}
const list = (person: Person, query: string, issuerId = a.issuerId) =>
  manageCall(api.baseUrl, person, 'GET', `/manage/issuers/${issuerId}/requests${query}`)
const getOne = (person: Person, requestId: string, issuerId = a.issuerId) =>
  manageCall(
    api.baseUrl,
    person,
    'GET',
    `/manage/issuers/${issuerId}/requests/${encodeURIComponent(requestId)}`,
  )

/** Every page of a listing, following nextCursor: the ids in order, and the pages' sizes. */
const allPages = async (
  query: Record<string, string>,
  limit: number,
  person = viewer,
  issuerId = a.issuerId,
) => {
  const ids: string[] = []
  const sizes: number[] = []
  let cursor: string | undefined
  for (let pages = 0; pages < 200; pages++) {
    const params = new URLSearchParams({
      ...query,
      limit: String(limit),
      ...(cursor ? { cursor } : {}),
    })
    const page = documented(LIST, await list(person, `?${params}`, issuerId))
    expect(page.status).toBe(200)
    const data = page.body.data as { requestId: string }[]
    expect(data.length).toBeLessThanOrEqual(limit)
    ids.push(...data.map((d) => d.requestId))
    sizes.push(data.length)
    cursor = (page.body.nextCursor as string | null) ?? undefined
    if (cursor === undefined) return { ids, sizes }
  }
  throw new Error('more than 200 pages')
}

describe('GET /manage/issuers/{issuerId}/requests', () => {
  test('newest first across every partition of both modes, one page or many, each entry once', async () => {
    const expected = newestFirst(entries)
    expect(new Set(entries.map((e) => e.mode))).toEqual(new Set(['TEST', 'LIVE']))
    const one = documented(LIST, await list(viewer, '?limit=100'))
    expect(one.status).toBe(200)
    expect(one.body).toMatchObject({ object: 'list', nextCursor: null })
    expect((one.body.data as { requestId: string }[]).map((d) => d.requestId)).toEqual(expected)
    for (const limit of [1, 7, 50]) {
      const { ids, sizes } = await allPages({}, limit)
      expect(ids).toEqual(expected)
      // Unfiltered pages are full but the last.
      expect(sizes.slice(0, -1).every((size) => size === limit)).toBe(true)
    }
    const first = await list(viewer, '')
    expect((first.body.data as unknown[]).length).toBe(50)
  })

  test('an entry shows every field it has and null for those it has not; nothing else', async () => {
    const page = await list(viewer, '?limit=100')
    const shown = page.body.data as Record<string, unknown>[]
    const withAll = entries.find((e) => e.code !== undefined && e.idempotencyKey !== undefined)
    const bare = entries.find((e) => e.code === undefined && e.idempotencyKey === undefined)
    for (const entry of [withAll, bare] as RequestLogEntry[]) {
      // Every field of the entry but the issuer's id (the path's), an absent one as null.
      const { issuerId: _issuer, ...fields } = entry
      expect(shown.find((s) => s.requestId === entry.requestId)).toEqual({
        ...fields,
        object: 'request',
        id: entry.requestId,
        grantId: entry.grantId ?? null,
        code: entry.code ?? null,
        idempotencyKey: entry.idempotencyKey ?? null,
      })
    }
  })

  /** The n-th entry, oldest first. */
  const at = (n: number) =>
    [...entries].sort((x, y) => (x.requestId < y.requestId ? -1 : 1))[n] as RequestLogEntry

  test.each([
    ['mode=TEST', { mode: 'TEST' }, (e: RequestLogEntry) => e.mode === 'TEST'],
    ['mode=LIVE', { mode: 'LIVE' }, (e: RequestLogEntry) => e.mode === 'LIVE'],
    ['status=201', { status: '201' }, (e: RequestLogEntry) => e.status === 201],
    ['status=429', { status: '429' }, (e: RequestLogEntry) => e.status === 429],
    ['code', { code: 'pool_exhausted' }, (e: RequestLogEntry) => e.code === 'pool_exhausted'],
    [
      'mode and status',
      { mode: 'LIVE', status: '409' },
      (e: RequestLogEntry) => e.mode === 'LIVE' && e.status === 409,
    ],
    ['status and code that never meet', { status: '200', code: 'rate_limited' }, () => false],
  ])('filter %s', async (_name, query, keep) => {
    const expected = newestFirst(entries.filter(keep))
    for (const limit of [3, 100]) expect((await allPages(query, limit)).ids).toEqual(expected)
  })

  test('by key, alone and with the other filters', async () => {
    for (const keyId of [...keys.TEST, ...keys.LIVE]) {
      const expected = newestFirst(entries.filter((e) => e.keyId === keyId))
      expect(expected.length).toBeGreaterThan(0)
      expect((await allPages({ keyId }, 4)).ids).toEqual(expected)
    }
    const keyId = keys.TEST[0] as string
    const since = at(10).at
    const until = at(60).at
    const expected = newestFirst(
      entries.filter(
        (e) => e.keyId === keyId && e.status === 201 && e.at >= since && e.at <= until,
      ),
    )
    expect(expected.length).toBeGreaterThan(1)
    expect((await allPages({ keyId, status: '201', mode: 'TEST', since, until }, 2)).ids).toEqual(
      expected,
    )
    // A key of the other mode, in this mode: nothing.
    expect((await allPages({ keyId: keys.LIVE[0] as string, mode: 'TEST' }, 10)).ids).toEqual([])
  })

  test('since and until are inclusive bounds, to the millisecond, alone or together', async () => {
    const from = at(9)
    const to = at(40)
    // Entries sharing the bound's millisecond are all inside it.
    const inRange = (e: RequestLogEntry) => e.at >= from.at && e.at <= to.at
    expect(entries.filter((e) => e.at === at(16).at).length).toBe(2)
    const both = (await allPages({ since: from.at, until: to.at }, 6)).ids
    expect(both).toEqual(newestFirst(entries.filter(inRange)))
    expect(both).toContain(from.requestId)
    expect(both).toContain(to.requestId)
    expect((await allPages({ since: at(16).at, until: at(16).at }, 6)).ids).toEqual(
      newestFirst(entries.filter((e) => e.at === at(16).at)),
    )
    expect((await allPages({ since: from.at }, 50)).ids).toEqual(
      newestFirst(entries.filter((e) => e.at >= from.at)),
    )
    expect((await allPages({ until: to.at }, 50)).ids).toEqual(
      newestFirst(entries.filter((e) => e.at <= to.at)),
    )
    // One millisecond past the bound leaves the bound's entry out; an offset other than Z reads the same instant.
    const after = new Date(Date.parse(from.at) + 1).toISOString()
    expect((await allPages({ since: after, until: to.at }, 50)).ids).not.toContain(from.requestId)
    const local = new Date(Date.parse(to.at) + 2 * 3_600_000).toISOString().replace('Z', '+02:00')
    expect((await allPages({ since: from.at, until: local }, 50)).ids).toEqual(both)
  })

  test("another issuer's log is invisible, and its people cannot read this one", async () => {
    const mine = (await allPages({}, 100)).ids
    for (const entry of othersEntries) expect(mine).not.toContain(entry.requestId)
    const theirs = await allPages({}, 5, memberOfB, b.issuerId)
    expect(theirs.ids).toEqual(newestFirst(othersEntries))
    expectProblem(await list(memberOfB, '', a.issuerId), 404, 'issuer_not_found')
  })

  test.each([
    ['mode', '?mode=test'],
    ['status', '?status=99'],
    ['status', '?status=600'],
    ['status', '?status=2xx'],
    ['keyId', '?keyId=key_short'],
    ['code', '?code=Not-A-Code'],
    ['since', '?since=yesterday'],
    ['until', '?until=2026-11-29T10:00:00'],
    ['until', '?since=2026-11-29T10:00:00Z&until=2026-11-29T09:59:59.999Z'],
    ['limit', '?limit=101'],
    ['cursor', '?cursor=abc'],
    ['colour', '?colour=red'],
  ])('a bad %s (%s): 400 validation_failed naming it, nothing read', async (field, query) => {
    const access = recordAccess(dynamodb)
    let answer: Call
    try {
      answer = documented(LIST, await list(viewer, query))
    } finally {
      access.stop()
    }
    expectProblem(answer, 400, 'validation_failed')
    expect(answer.body.errors).toEqual([expect.objectContaining({ field })])
    // The membership only.
    expect([...access.seen]).toEqual(['memberships dynamodb:GetItem'])
  })

  test("a cursor of one mode's listing is refused by another's; every bad filter named at once", async () => {
    const page = await list(viewer, '?limit=2')
    const cursor = page.body.nextCursor as string
    expect(cursor).toEqual(expect.any(String))
    expectProblem(await list(viewer, `?mode=TEST&cursor=${cursor}`), 400, 'validation_failed')
    const many = await list(viewer, '?mode=X&status=0&since=now')
    expectProblem(many, 400, 'validation_failed')
    expect((many.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual([
      'mode',
      'since',
      'status',
    ])
  })

  test('reads only what its IAM allows', async () => {
    const access = recordAccess(dynamodb)
    try {
      expect((await list(viewer, `?keyId=${keys.TEST[0]}&limit=3`)).status).toBe(200)
    } finally {
      access.stop()
    }
    expect([...access.seen].sort()).toEqual([...declaredAccess('ListRequests')].sort())
  })
})

describe('a filter that matches few of many entries', () => {
  test('pages read a bounded number of entries: short or empty pages with a cursor, then every match once', async () => {
    const c = await newIssuer()
    await addMember(c.issuerId, viewer, 'viewer')
    const many = makeEntries(
      c.issuerId,
      { TEST: [c.keyRecords.TEST.keyId], LIVE: [c.keyRecords.LIVE.keyId] },
      1_500,
      Date.now() - 20 * 3_600_000,
    ).map((e, i) => (i < 3 ? { ...e, status: 503, code: 'service_unavailable' } : e))
    await putRequestLog(many)
    const { ids, sizes } = await allPages({ status: '503' }, 10, viewer, c.issuerId)
    expect(ids).toEqual(newestFirst(many.slice(0, 3)))
    // The newest 1,000 or so entries hold no match: the first page is empty, yet has a cursor.
    expect(sizes[0]).toBe(0)
    expect(sizes.length).toBeGreaterThan(1)
  })
})

describe('GET /manage/issuers/{issuerId}/requests/{requestId}', () => {
  test("each mode's entry by its id, with only what its IAM allows", async () => {
    const live = entries.find((e) => e.mode === 'LIVE') as RequestLogEntry
    const test = entries.find((e) => e.mode === 'TEST') as RequestLogEntry
    const access = recordAccess(dynamodb)
    try {
      for (const entry of [live, test]) {
        const one = documented(ONE, await getOne(viewer, entry.requestId))
        expect(one.status).toBe(200)
        expect(one.body).toMatchObject({
          object: 'request',
          requestId: entry.requestId,
          mode: entry.mode,
          status: entry.status,
          keyId: entry.keyId,
        })
      }
    } finally {
      access.stop()
    }
    expect([...access.seen].sort()).toEqual([...declaredAccess('GetRequest')].sort())
  })

  test("a malformed, unknown or another issuer's id: 404 request_not_found", async () => {
    const theirs = othersEntries[0] as RequestLogEntry
    for (const id of ['req_nope', 'gr_0000', newRequestId(Date.now()), theirs.requestId]) {
      expectProblem(documented(ONE, await getOne(viewer, id)), 404, 'request_not_found')
    }
    expect((await getOne(memberOfB, theirs.requestId, b.issuerId)).status).toBe(200)
    const mine = entries[0] as RequestLogEntry
    expectProblem(await getOne(memberOfB, mine.requestId, b.issuerId), 404, 'request_not_found')
    expectProblem(await getOne(memberOfB, mine.requestId), 404, 'issuer_not_found')
  })
})

describe("a grant's making request", () => {
  test('the management grant view shows the requestId its record holds, else null', async () => {
    const made = await postGrant(api.baseUrl, a.programs.TEST, a.keys.TEST, {
      recipient: { email: 'log@example.com' },
      reason: 'Request log',
      amount: 1,
    })
    expect(made.status).toBe(201)
    const grantId = made.body.id as string
    const view = async () =>
      (
        await manageCall(
          api.baseUrl,
          viewer,
          'GET',
          `/manage/issuers/${a.issuerId}/grants/${grantId}`,
        )
      ).body.requestId
    const requestId = (entries.find((e) => e.status === 201) as RequestLogEntry).requestId
    // What the grant path stores on a grant it makes (issue 33), put here as it would be.
    await documentClient.send(
      new UpdateCommand({
        TableName: config.tables.grants,
        Key: { grantId },
        UpdateExpression: 'SET requestId = :r',
        ExpressionAttributeValues: { ':r': requestId },
      }),
    )
    expect(await view()).toBe(requestId)
    await documentClient.send(
      new UpdateCommand({
        TableName: config.tables.grants,
        Key: { grantId },
        UpdateExpression: 'REMOVE requestId',
      }),
    )
    expect(await view()).toBeNull()
  })
})
