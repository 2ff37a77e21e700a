import type { GrantRecord } from '../../../domain/grant'
import { encodeGrantCursor } from '../../../domain/grant'
import { GRANT_PAGE, parseGrantListQuery } from '../../../domain/grant-list-query'
import type { GrantReads } from '../../../stores/grants.store'
import { CSV_MAX_BYTES, csvPageHeaders, wantsCsv } from '../../csv-answer'
import { grantCsvHeader, grantCsvLine, toManagedGrant } from '../../grant-view'
import { json } from '../../http-handler'
import { type ManageDeps, manageHandler } from '../../manage-handler'
import { NO_STORE, programOfIssuer } from '../../program-of-issuer'

/**
 * Pages of the CSV export. A Lambda answer through API Gateway is at most 6 MB: a page holds at
 * most 1,000 grants (a grant's line is at most about 4.5 KB: every text field at its limit, in
 * 4-byte characters, quotes doubled) and stops early past CSV_MAX_BYTES of text, whatever comes.
 */
export const CSV_PAGE = { default: 1_000, max: 1_000 } as const
export { CSV_MAX_BYTES, wantsCsv }

/** What the route reads: the program and its grants' listing (wiring/manage-grants.deps.ts). */
export type ManageListGrantsDeps = ManageDeps & {
  readonly grants: Pick<GrantReads, 'findProgram' | 'listGrants'>
}

/**
 * `GET /manage/issuers/{issuerId}/programs/{programId}/grants?recipient=&cursor=&limit=` (viewer):
 * the program's grants, newest first, as the management API shows them (who sent each). With
 * `Accept: text/csv`, the same listing as CSV, a page at a time: the header row on the first page
 * only (so pages appended in order make one file), the next page's cursor in `x-next-cursor` and
 * in `Link: <...>; rel="next"`.
 */
export const makeManageListGrantsHandler = ({ grants: store, ...deps }: ManageListGrantsDeps) =>
  manageHandler('ListGrants', deps, async ({ event, deadline, membership }) => {
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
    const headers = csvPageHeaders({
      first,
      filename: `grants-${program.programId}.csv`,
      path: event.rawPath,
      nextCursor,
      query: { limit: String(query.limit), recipient: query.recipientEmail },
    })
    return { statusCode: 200, headers, body }
  })
