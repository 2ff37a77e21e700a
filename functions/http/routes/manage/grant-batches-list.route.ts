import type { Runtime } from '../../../composition'
import { IssuerProgramNotFound } from '../../../domain/errors'
import { readPageQuery } from '../../../domain/page-query'
import { ownedBy } from '../../../domain/program'
import {
  DynamoDbBatchListing,
  decodeBatchCursor,
  encodeBatchCursor,
} from '../../../stores/batch-listing.dynamodb'
import { DynamoDbMembershipReader } from '../../../stores/memberships.dynamodb'
import { BATCH_PAGE, toBatchView } from '../../batch-view'
import { json } from '../../http-handler'
import { manageHandler } from '../../manage-handler'
import { checkProgramId, NO_STORE } from '../../program-of-issuer'

/**
 * `GET /manage/issuers/{issuerId}/programs/{programId}/grant-batches?cursor=&limit=` (viewer): the
 * program's batches, newest first, each as GetGrantBatch shows it without its rows (status, counts,
 * rows per second, time left). The program must be the path issuer's (another issuer's answers
 * 404 like a missing one). Batches committed before batches were listed are not in the list.
 */
export const makeListGrantBatchesHandler = (runtime: Runtime) => {
  const { documentClient: client, config } = runtime
  const memberships = new DynamoDbMembershipReader(client, config.tables)
  const listing = new DynamoDbBatchListing(client, config.tables)
  return manageHandler(
    'ListGrantBatches',
    { memberships },
    async ({ event, deadline, membership }) => {
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
      const now = runtime.clock.now()
      return json(
        200,
        {
          object: 'list',
          data: page.batches.map((batch) => toBatchView(batch, now)),
          nextCursor: page.nextCursor === undefined ? null : encodeBatchCursor(page.nextCursor),
        },
        NO_STORE,
      )
    },
  )
}
