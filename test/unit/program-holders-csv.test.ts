import { parse as parseWithCsvParse } from 'csv-parse/sync'
import type { HoldersAnswer } from '../../functions/core/program-figures'
import type { MembershipRecord } from '../../functions/domain/people'
import { CSV_MAX_BYTES } from '../../functions/http/csv-answer'
import { makeProgramHoldersHandler } from '../../functions/http/routes/manage/program-holders.route'

/**
 * The holders' CSV past one answer's size: it stops at a page's end before CSV_MAX_BYTES, names
 * the rest in `x-next-cursor` and `Link`, and the rest (no header row) makes one file with it.
 * In process, over holders in memory (a real program's: test/manage/program-figures.manage.test.ts).
 */

const ISSUER = 'iss_01jd0000000000000000000000'
const PROGRAM = 'prg_01jd0000000000000000000000'
const PAGE = 100
// Long addresses (about 250 bytes a line), so a few thousand holders pass the cap.
const TOTAL = Math.ceil(CSV_MAX_BYTES / 250 / PAGE + 3) * PAGE
const emailOf = (n: number) => `${'x'.repeat(200)}${String(n).padStart(6, '0')}@example.com`

const pageAt = (start: number): HoldersAnswer => {
  const end = Math.min(TOTAL, start + PAGE)
  return {
    programId: PROGRAM,
    items: Array.from({ length: end - start }, (_, i) => ({
      email: emailOf(start + i),
      accepted: TOTAL - start - i,
      pending: 0,
      shareOfPool: null,
      value: null,
    })),
    nextCursor: end < TOTAL ? String(end) : undefined,
    tokenValue: null,
    tokenValueCurrency: null,
    pool: { size: null, issued: 0, remaining: null },
  }
}

const handler = makeProgramHoldersHandler({
  memberships: {
    get: async () =>
      ({
        issuerId: ISSUER,
        sub: 'sub-1',
        email: 'v@example.com',
        role: 'viewer',
        status: 'active',
      }) as MembershipRecord,
  } as never,
  figures: {
    holders: async () => pageAt(0),
    holderPages: async function* (_issuer, _program, page) {
      for (let at = Number(page.cursor ?? 0); at < TOTAL; at += PAGE) yield pageAt(at)
    },
    daily: async () => {
      throw new Error('not here')
    },
  },
})

const call = async (cursor?: string) => {
  const result = (await handler(
    {
      version: '2.0',
      routeKey: 'GET /manage/issuers/{issuerId}/programs/{programId}/holders',
      rawPath: `/manage/issuers/${ISSUER}/programs/${PROGRAM}/holders`,
      rawQueryString: cursor === undefined ? '' : `cursor=${cursor}`,
      headers: { accept: 'text/csv' },
      queryStringParameters: cursor === undefined ? undefined : { cursor },
      pathParameters: { issuerId: ISSUER, programId: PROGRAM },
      requestContext: {
        requestId: `req-${Math.random()}`,
        http: { method: 'GET' },
        authorizer: { jwt: { claims: { sub: 'sub-1' }, scopes: [] } },
      },
      isBase64Encoded: false,
    } as never,
    { awsRequestId: 'local', getRemainingTimeInMillis: () => 10_000 } as never,
  )) as { statusCode: number; headers: Record<string, string>; body: string }
  expect(result.statusCode).toBe(200)
  return result
}

test('a CSV past one answer stops at a page end under the cap; the rest follows without a header', async () => {
  const first = await call()
  expect(Buffer.byteLength(first.body)).toBeLessThanOrEqual(CSV_MAX_BYTES)
  expect(first.headers['content-type']).toBe('text/csv; charset=utf-8; header=present')
  const next = first.headers['x-next-cursor'] as string
  expect(Number(next) % PAGE).toBe(0)
  expect(Number(next)).toBeLessThan(TOTAL)
  expect(first.headers.link).toBe(
    `</manage/issuers/${ISSUER}/programs/${PROGRAM}/holders?cursor=${next}>; rel="next"`,
  )
  const rest = await call(next)
  expect(rest.headers['content-type']).toBe('text/csv; charset=utf-8; header=absent')
  expect(rest.headers['x-next-cursor']).toBeUndefined()
  const rows = parseWithCsvParse(first.body + rest.body) as string[][]
  expect(rows[0]).toEqual(['email', 'accepted', 'pending', 'share_of_pool', 'value', 'currency'])
  expect(rows.slice(1).map((r) => r[0])).toEqual(
    Array.from({ length: TOTAL }, (_, n) => emailOf(n)),
  )
})
