import type { makeBatchCancel } from '../../../core/batch-cancel'
import { BATCH_ID } from '../../../domain/batch'
import { BatchNotFound } from '../../../domain/errors'
import { toBatchView } from '../../batch-view'
import { json } from '../../http-handler'
import { type ManageDeps, manageHandler } from '../../manage-handler'
import { checkProgramId, NO_STORE } from '../../program-of-issuer'

/** The cancel's use case, built by the composition root (wiring/batches.deps.ts). */
export type CancelGrantBatchDeps = ManageDeps & {
  readonly cancel: ReturnType<typeof makeBatchCancel>
  readonly clock: () => number
}

/**
 * `POST /manage/issuers/{issuerId}/programs/{programId}/grant-batches/{batchId}/cancel` (admin):
 * asks a queued, running or stalled batch to stop (core/batch-cancel.ts). `202` with the batch
 * (`canceling`) once the cancel is recorded with its `batch.cancel` audit entry: the worker starts
 * no row after it sees the cancel (within about a second); rows it had started may still be
 * granted; every row granted stays granted; the others end `canceled`, and the batch `canceled`
 * (`done` if no row was left). A stalled batch's chunks are sent again so that the worker can do
 * so. Asking again is the same cancel (`202`). A batch that finished before any cancel was asked:
 * `409 batch_finished`. Another issuer's or program's batch: `404 batch_not_found`.
 */
export const makeCancelGrantBatchHandler = ({ cancel, clock, ...deps }: CancelGrantBatchDeps) =>
  manageHandler(
    'CancelGrantBatch',
    deps,
    async ({ event, deadline, membership, actor, requestId }) => {
      const programId = checkProgramId(event.pathParameters?.programId)
      const batchId = event.pathParameters?.batchId ?? ''
      if (!BATCH_ID.test(batchId)) throw new BatchNotFound(batchId)
      if (actor?.kind !== 'person' || !membership) {
        throw new Error('CancelGrantBatch needs the member who cancels')
      }
      const { batch } = await cancel({
        batchId,
        issuerId: membership.issuerId,
        programId,
        actor,
        requestId,
        signal: deadline.signal,
      })
      return json(202, toBatchView(batch, clock()), NO_STORE)
    },
  )
