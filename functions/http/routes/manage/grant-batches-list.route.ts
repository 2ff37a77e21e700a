import type { Runtime } from '../../../composition'
import { type FieldError, IssuerProgramNotFound, ValidationFailed } from '../../../domain/errors'
import { ownedBy } from '../../../domain/program'
import {
  type BatchCursor,
  DynamoDbBatchListing,
  decodeBatchCursor,
  encodeBatchCursor,
} from '../../../stores/batch-listing.dynamodb'
import { DynamoDbMembershipReader } from '../../../stores/memberships.dynamodb'
import { BATCH_PAGE, toBatchView } from '../../batch-view'
import { json } from '../../http-handler'
import { manageHandler } from '../../manage-handler'
import { checkProgramId, NO_STORE } from '../../program-of-issuer'

const parseQuery = (query: Record<string, string | undefined> | undefined) => {
  const given = query ?? {}
  const errors: FieldError[] = Object.keys(given)
    .filter((name) => !['cursor', 'limit'].includes(name))
    .map((name) => ({ field: name, message: `unknown query parameter ${JSON.stringify(name)}` }))
  let limit: number = BATCH_PAGE.default
  if (given.limit !== undefined && given.limit !== '') {
    limit = /^\d{1,6}$/.test(given.limit) ? Number(given.limit) : 0
    if (limit < 1 || limit > BATCH_PAGE.max) {
      errors.push({
        field: 'limit',
        message: `limit must be a whole number from 1 to ${BATCH_PAGE.max}`,
      })
    }
  }
  let cursor: BatchCursor | undefined
  if (given.cursor !== undefined && given.cursor !== '') {
    cursor = decodeBatchCursor(given.cursor)
    if (!cursor)
      errors.push({ field: 'cursor', message: 'cursor must be the nextCursor of a previous page' })
  }
  if (errors.length > 0) throw new ValidationFailed(errors)
  return { limit, cursor }
}

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
      const query = parseQuery(event.queryStringParameters)
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
