import type { Runtime } from '../../../composition'
import { BATCH_ID, rowsLeft } from '../../../domain/batch'
import { BatchFinished, BatchNotFound } from '../../../domain/errors'
import { auditEntry } from '../../../stores/audit'
import { DynamoDbBatchListing } from '../../../stores/batch-listing.dynamodb'
import { DynamoDbMembershipReader } from '../../../stores/memberships.dynamodb'
import { toBatchView } from '../../batch-view'
import { json } from '../../http-handler'
import { manageHandler } from '../../manage-handler'
import { checkProgramId, NO_STORE } from '../../program-of-issuer'

/**
 * `POST /manage/issuers/{issuerId}/programs/{programId}/grant-batches/{batchId}/cancel` (admin):
 * asks a queued or running batch to stop. `202` with the batch (`canceling`) once the cancel is
 * recorded with its `batch.cancel` audit entry: the worker starts no row after it sees the cancel
 * (within about a second); rows it had started may still be granted; every row granted stays
 * granted; the others end `canceled`, and the batch `canceled` (`done` if no row was left). Asking
 * again is the same cancel (`202`, nothing written). A batch that finished before any cancel was
 * asked: `409 batch_finished`. Another issuer's or program's batch: `404 batch_not_found`.
 */
export const makeCancelGrantBatchHandler = (runtime: Runtime) => {
  const { documentClient: client, config } = runtime
  const memberships = new DynamoDbMembershipReader(client, config.tables)
  const listing = new DynamoDbBatchListing(client, config.tables)
  return manageHandler(
    'CancelGrantBatch',
    { memberships },
    async ({ event, deadline, membership, actor, requestId }) => {
      const programId = checkProgramId(event.pathParameters?.programId)
      const batchId = event.pathParameters?.batchId ?? ''
      if (!BATCH_ID.test(batchId)) throw new BatchNotFound(batchId)
      const issuerId = membership?.issuerId ?? ''
      const person = actor as NonNullable<typeof actor>
      const signal = deadline.signal
      // What the audit entry says was left: read first (the cancel's own condition decides).
      const before = await listing.getBatch({ batchId, issuerId, programId }, { signal })
      if (!before) throw new BatchNotFound(batchId)
      const now = runtime.clock.now()
      const result = await listing.requestCancel(
        {
          batchId,
          issuerId,
          programId,
          actor: { sub: person.sub, email: person.email },
          now,
          audit: auditEntry({
            issuerId,
            actor: person,
            action: 'batch.cancel',
            target: { type: 'batch', id: batchId },
            now,
            requestId,
            details: {
              programId,
              total: before.total,
              granted: before.granted,
              failed: before.failed,
              left: rowsLeft(before),
            },
          }),
        },
        { signal },
      )
      if (result.outcome === 'missing') throw new BatchNotFound(batchId)
      // Finished before anyone asked: nothing to stop. Finished after a cancel was asked: that
      // cancel, asked again.
      if (result.outcome === 'final' && result.batch.cancelRequestedAt === undefined) {
        throw new BatchFinished(batchId, result.batch.status)
      }
      return json(202, toBatchView(result.batch, runtime.clock.now()), NO_STORE)
    },
  )
}
