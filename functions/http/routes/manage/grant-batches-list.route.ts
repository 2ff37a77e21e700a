import { decodeBatchCursor, encodeBatchCursor } from '../../../domain/batch'
import { IssuerProgramNotFound } from '../../../domain/errors'
import { readPageQuery } from '../../../domain/page-query'
import { ownedBy } from '../../../domain/program'
import type { BatchListing } from '../../../stores/batches.store'
import { BATCH_PAGE, toBatchView } from '../../batch-view'
import { json } from '../../http-handler'
import { type ManageDeps, manageHandler } from '../../manage-handler'
import { checkProgramId, NO_STORE } from '../../program-of-issuer'

/** What the route reads (wiring/batches.deps.ts): whose the program is, and its batches. */
export type ListGrantBatchesDeps = ManageDeps & {
  readonly listing: Pick<BatchListing, 'findProgram' | 'listBatches'>
  readonly clock: () => number
}

/**
 * `GET /manage/issuers/{issuerId}/programs/{programId}/grant-batches?cursor=&limit=` (viewer): the
 * program's batches, newest first, each as GetGrantBatch shows it without its rows (status, counts,
 * rows per second, time left). The program must be the path issuer's (another issuer's answers
 * 404 like a missing one). Batches committed before batches were listed are not in the list.
 */
export const makeListGrantBatchesHandler = ({ listing, clock, ...deps }: ListGrantBatchesDeps) =>
  manageHandler('ListGrantBatches', deps, async ({ event, deadline, membership }) => {
    const programId = checkProgramId(event.pathParameters?.programId)
    const query = readPageQuery(event.queryStringParameters, {
      page: BATCH_PAGE,
      decode: decodeBatchCursor,
    }).done()
    const issuerId = membership?.issuerId ?? ''
    const signal = deadline.signal
    const program = await listing.findProgram(programId, { signal })
    if (!ownedBy(program, issuerId)) throw new IssuerProgramNotFound(programId)
    const page = await listing.listBatches({ issuerId, programId, ...query }, { signal })
    const now = clock()
    return json(
      200,
      {
        object: 'list',
        data: page.batches.map((batch) => toBatchView(batch, now)),
        nextCursor: page.nextCursor === undefined ? null : encodeBatchCursor(page.nextCursor),
      },
      NO_STORE,
    )
  })
