import type { HoldersAnswer, HolderView, ProgramFigures } from '../../../core/program-figures'
import { csvLine } from '../../../domain/csv'
import { readPageQuery } from '../../../domain/page-query'
import { CSV_MAX_BYTES, csvPageHeaders, wantsCsv } from '../../csv-answer'
import { type ManageDeps, manageHandler } from '../../manage-handler'
import { manageJson } from '../../manage-http'
import { checkProgramId } from '../../program-of-issuer'

/** What the figures routes run on: the program's figures (wiring/program-figures.deps.ts). */
export type ProgramFiguresRouteDeps = ManageDeps & {
  readonly figures: Pick<ProgramFigures, 'holders' | 'holderPages' | 'daily'>
}

/** A JSON page of holders; the figures store pages by at most 100. */
export const HOLDER_PAGE = { default: 50, max: 100 } as const

/**
 * What one CSV answer keeps back: a page of holders is at most 100 lines of about 1.1 KB (an
 * address of 254 four-byte characters), and the answer must come before the request's deadline.
 * Past either, the rest is the next page (`x-next-cursor`, `Link`), as the grants export pages.
 */
const CSV_RESERVE = { bytes: 256 * 1024, ms: 1_000 } as const

const CSV_COLUMNS = ['email', 'accepted', 'pending', 'share_of_pool', 'value', 'currency'] as const

const holderLine = (holder: HolderView, currency: string | null) =>
  csvLine([
    holder.email,
    holder.accepted,
    holder.pending,
    holder.shareOfPool,
    holder.value,
    holder.value === null ? null : currency,
  ])

/** The page as JSON: the holders and what they are shown with (the value, the pool now). */
const holdersJson = (page: HoldersAnswer) =>
  manageJson(200, {
    object: 'list',
    data: page.items,
    nextCursor: page.nextCursor ?? null,
    tokenValue: page.tokenValue,
    tokenValueCurrency: page.tokenValueCurrency,
    pool: page.pool,
  })

/**
 * `GET /manage/issuers/{issuerId}/programs/{programId}/holders?limit=&cursor=` (viewer): the
 * program's holders, most accepted shares first, with their share of the pool and the value of
 * their accepted shares. With `Accept: text/csv`, every holder in one file (formula-safe, header
 * row first), unless it would pass the answer's size or time: then the rest follows from
 * `x-next-cursor` / `Link: rel="next"` without a header row, as the grants export does.
 */
export const makeProgramHoldersHandler = ({ figures, ...deps }: ProgramFiguresRouteDeps) =>
  manageHandler('ListProgramHolders', deps, async ({ event, deadline, membership }) => {
    const csv = wantsCsv(event.headers.accept)
    const { limit, cursor } = readPageQuery(event.queryStringParameters, {
      page: HOLDER_PAGE,
      decode: (text) => text,
    }).done()
    const programId = checkProgramId(event.pathParameters?.programId)
    const issuerId = membership?.issuerId ?? ''
    const options = { signal: deadline.signal }
    if (!csv)
      return holdersJson(await figures.holders(issuerId, programId, { limit, cursor }, options))

    const first = cursor === undefined
    let body = first ? csvLine(CSV_COLUMNS) : ''
    let bytes = Buffer.byteLength(body)
    let nextCursor: string | undefined
    const pages = figures.holderPages(
      issuerId,
      programId,
      { limit: HOLDER_PAGE.max, cursor },
      options,
    )
    for await (const page of pages) {
      for (const holder of page.items) {
        const line = holderLine(holder, page.tokenValueCurrency)
        body += line
        bytes += Buffer.byteLength(line)
      }
      nextCursor = page.nextCursor
      const full = bytes > CSV_MAX_BYTES - CSV_RESERVE.bytes
      if (nextCursor === undefined || full || deadline.remainingMs() < CSV_RESERVE.ms) break
    }
    const headers = csvPageHeaders({
      first,
      filename: `holders-${programId}.csv`,
      path: event.rawPath,
      nextCursor,
      query: {},
    })
    return { statusCode: 200, headers, body }
  })
