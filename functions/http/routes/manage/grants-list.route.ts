import type { Runtime } from '../../../composition'
import type { GrantRecord } from '../../../domain/grant'
import { encodeGrantCursor } from '../../../domain/grant'
import { GRANT_PAGE, parseGrantListQuery } from '../../../domain/grant-list-query'
import { DynamoDbGrantReads } from '../../../stores/grants.reads.dynamodb'
import { DynamoDbMembershipReader } from '../../../stores/memberships.dynamodb'
import { grantCsvHeader, grantCsvLine, toManagedGrant } from '../../grant-view'
import { json } from '../../http-handler'
import { manageHandler } from '../../manage-handler'
import { NO_STORE, programOfIssuer } from '../../program-of-issuer'

/**
 * Pages of the CSV export. A Lambda answer through API Gateway is at most 6 MB: a page holds at
 * most 1,000 grants (a grant's line is at most about 4.5 KB: every text field at its limit, in
 * 4-byte characters, quotes doubled) and stops early past 5 MB of text, whatever comes.
 */
export const CSV_PAGE = { default: 1_000, max: 1_000 } as const
export const CSV_MAX_BYTES = 5 * 1024 * 1024

/**
 * Whether the caller asked for CSV: `text/csv` in Accept with a q above 0 and at least the q of
 * any JSON type it lists. Anything else (no Accept, `*\/*`, JSON) is JSON.
 */
export const wantsCsv = (accept: string | undefined) => {
  if (accept === undefined) return false
  let csv = 0
  let jsonQ = 0
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase())
    const qParam = params.find((p) => p.startsWith('q='))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    if (!Number.isFinite(q)) continue
    if (type === 'text/csv') csv = Math.max(csv, q)
    if (type === 'application/json' || type === 'application/*') jsonQ = Math.max(jsonQ, q)
  }
  return csv > 0 && csv >= jsonQ
}

/**
 * `GET /manage/issuers/{issuerId}/programs/{programId}/grants?recipient=&cursor=&limit=` (viewer):
 * the program's grants, newest first, as the management API shows them (who sent each). With
 * `Accept: text/csv`, the same listing as CSV, a page at a time: the header row on the first page
 * only (so pages appended in order make one file), the next page's cursor in `x-next-cursor` and
 * in `Link: <...>; rel="next"`.
 */
export const makeManageListGrantsHandler = (runtime: Runtime) => {
  const { documentClient: client, config } = runtime
  const memberships = new DynamoDbMembershipReader(client, config.tables)
  const store = new DynamoDbGrantReads(client, config.tables, config.grantListIndex)
  return manageHandler('ListGrants', { memberships }, async ({ event, deadline, membership }) => {
    const csv = wantsCsv(event.headers.accept)
    const query = parseGrantListQuery(event.queryStringParameters, csv ? CSV_PAGE : GRANT_PAGE)
    const program = await programOfIssuer(
      store,
      membership?.issuerId ?? '',
      event.pathParameters?.programId,
      { signal: deadline.signal },
    )
    const page = await store.listGrants({
      programId: program.programId,
      ...query,
      signal: deadline.signal,
    })
    if (!csv) {
      return json(
        200,
        {
          object: 'list',
          data: page.items.map(toManagedGrant),
          nextCursor: page.nextCursor ?? null,
        },
        NO_STORE,
      )
    }

    const first = query.after === undefined
    let body = first ? grantCsvHeader() : ''
    let bytes = Buffer.byteLength(body)
    let nextCursor = page.nextCursor
    let last: GrantRecord | undefined
    for (const [i, grant] of page.items.entries()) {
      const line = grantCsvLine(grant)
      const size = Buffer.byteLength(line)
      if (bytes + size > CSV_MAX_BYTES && last !== undefined) {
        // Past the cap: the rest of this page is the next page.
        nextCursor = encodeGrantCursor({ createdAt: last.createdAt, grantId: last.grantId })
        break
      }
      body += line
      bytes += size
      last = grant
      if (i === page.items.length - 1) break
    }
    const headers: Record<string, string> = {
      ...NO_STORE,
      'content-type': `text/csv; charset=utf-8; header=${first ? 'present' : 'absent'}`,
      'content-disposition': `attachment; filename="grants-${program.programId}.csv"`,
    }
    if (nextCursor !== undefined) {
      const params = new URLSearchParams({
        cursor: nextCursor,
        limit: String(query.limit),
        ...(query.recipientEmail === undefined ? {} : { recipient: query.recipientEmail }),
      })
      headers['x-next-cursor'] = nextCursor
      headers.link = `<${event.rawPath}?${params}>; rel="next"`
    }
    return { statusCode: 200, headers, body }
  })
}
