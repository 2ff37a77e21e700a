import { BATCH_ID } from '../../../domain/batch'
import { BatchNotFound, ValidationFailed } from '../../../domain/errors'
import { oneOf, readPageQuery } from '../../../domain/page-query'
import { ownedBy } from '../../../domain/program'
import type { BatchStore } from '../../../stores/batches.store'
import {
  batchResultCsvHeader,
  batchResultCsvLine,
  decodeRowCursor,
  encodeRowCursor,
  pageOfRows,
  type RowCursor,
  type RowView,
  toBatchView,
} from '../../batch-view'
import { csvPageHeaders, wantsCsv } from '../../csv-answer'
import { json } from '../../http-handler'
import { type ManageDeps, manageHandler } from '../../manage-handler'
import { checkProgramId, NO_STORE } from '../../program-of-issuer'

export const ROW_PAGE = { default: 100, max: 500 } as const
const ROW_STATUSES = ['pending', 'granted', 'failed', 'canceled'] as const
/** What the route reads (wiring/batches.deps.ts): the batch and its chunks of rows. */
export type GetGrantBatchDeps = ManageDeps & {
  readonly batches: Pick<BatchStore, 'getBatch' | 'getChunks'>
  readonly clock: () => number
}

/** Chunks read per BatchGetItem while filling a page. */
const CHUNKS_PER_READ = 10

const parseQuery = (query: Record<string, string | undefined> | undefined) => {
  const read = readPageQuery(query, {
    page: ROW_PAGE,
    decode: decodeRowCursor,
    filters: ['status'],
  })
  const status = oneOf(
    read,
    'status',
    ROW_STATUSES,
    'status must be pending, granted, failed or canceled',
  )
  return { ...read.done(), status }
}

/**
 * `GET /manage/issuers/{issuerId}/programs/{programId}/grant-batches/{batchId}?cursor=&limit=&status=`
 * (viewer): the batch's progress (counts: total, granted, failed, canceled, pending; rate and time
 * left) and a page of its rows with what became of each, in CSV order, optionally only `pending`,
 * `granted`, `failed` or `canceled` ones. With `Accept: text/csv`, the same rows as CSV, a page at a
 * time as the grants export pages (http/csv-answer.ts), in the columns a batch reads back
 * (batch-view.ts BATCH_RESULT_CSV_COLUMNS): the failed rows, fixed, can be sent again as they are.
 * A row's line is at most a few KB (every value kept at its limit), so 500 rows stay well inside
 * Lambda's 6 MB answer.
 */
export const makeGetGrantBatchHandler = ({ batches, clock, ...deps }: GetGrantBatchDeps) =>
  manageHandler('GetGrantBatch', deps, async ({ event, deadline, membership }) => {
    const programId = checkProgramId(event.pathParameters?.programId)
    const batchId = event.pathParameters?.batchId ?? ''
    if (!BATCH_ID.test(batchId)) throw new BatchNotFound(batchId)
    const query = parseQuery(event.queryStringParameters)
    const signal = deadline.signal
    const batch = await batches.getBatch(batchId, { signal })
    // Another issuer's batch, or one of another program, answers as a missing one.
    if (!ownedBy(batch, membership?.issuerId ?? '') || batch.program !== programId) {
      throw new BatchNotFound(batchId)
    }
    const start = query.cursor ?? { chunk: 0, offset: 0 }
    if (start.chunk >= batch.chunks && batch.chunks > 0) {
      throw new ValidationFailed([
        { field: 'cursor', message: 'cursor must be the nextCursor of a previous page' },
      ])
    }
    const csv = wantsCsv(event.headers.accept)
    const rows: RowView[] = []
    let next: RowCursor | undefined
    for (let from = start.chunk; from < batch.chunks; from += CHUNKS_PER_READ) {
      const chunks = await batches.getChunks(
        batch,
        from,
        Math.min(batch.chunks, from + CHUNKS_PER_READ),
        {
          signal,
        },
      )
      const page = pageOfRows(batch, chunks, start, query.limit - rows.length, query.status)
      rows.push(...page.rows)
      next = page.next
      if (next !== undefined) break
    }
    if (csv) {
      const first = query.cursor === undefined
      return {
        statusCode: 200,
        headers: csvPageHeaders({
          first,
          filename: `batch-${batchId}${query.status === undefined ? '' : `-${query.status}`}.csv`,
          path: event.rawPath,
          nextCursor: next === undefined ? undefined : encodeRowCursor(next),
          query: { limit: String(query.limit), status: query.status },
        }),
        body: (first ? batchResultCsvHeader() : '') + rows.map(batchResultCsvLine).join(''),
      }
    }
    return json(
      200,
      {
        ...toBatchView(batch, clock()),
        rows,
        nextCursor: next === undefined ? null : encodeRowCursor(next),
      },
      NO_STORE,
    )
  })
