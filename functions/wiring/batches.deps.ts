import { queueOf, type Runtime } from '../composition'
import { makeBatchCancel } from '../core/batch-cancel'
import { makeBatchCommit } from '../core/batch-commit'
import type { CancelGrantBatchDeps } from '../http/routes/manage/grant-batch-cancel.route'
import type { CreateGrantBatchDeps } from '../http/routes/manage/grant-batch-create.route'
import type { GetGrantBatchDeps } from '../http/routes/manage/grant-batch-get.route'
import type { BatchUploadDeps } from '../http/routes/manage/grant-batch-upload.route'
import type { ListGrantBatchesDeps } from '../http/routes/manage/grant-batches-list.route'
import type { QueueSender } from '../runtime/queue-sender'
import { DynamoDbBatchListing } from '../stores/batch-listing.dynamodb'
import { DynamoDbBatchStore } from '../stores/batches.dynamodb'
import { DynamoDbGrantStore } from '../stores/grants.dynamodb'
import { lazyUploadStore } from '../stores/uploads.s3'
import { manageDeps } from './manage.deps'

/** The send-to-many routes (a program's batches and uploads), each over the runtime's client. */

/** What a test may put in place of the runtime's: the queue, and rows per chunk (the service's 100). */
export type BatchDepsOptions = { queue?: QueueSender; chunkRows?: number }

/**
 * The GrantBatchRows queue, looked up when it is first sent to: the local server builds every
 * route, and one without a pipeline still answers dry runs.
 */
const batchRowsQueue = (runtime: Runtime, queue: QueueSender | undefined): QueueSender =>
  queue ?? { sendBatch: (entries) => queueOf(runtime, 'GrantBatchRows').sendBatch(entries) }

const clockOf = (runtime: Runtime) => () => runtime.clock.now()

/** What the routes that show a batch share: the role check, and the clock its status is read at. */
const batchViewDeps = (runtime: Runtime) => ({ ...manageDeps(runtime), clock: clockOf(runtime) })

/** CreateGrantBatchUpload: whose the program is, and the upload store (S3 built on first use). */
export const batchUploadDeps = (runtime: Runtime): BatchUploadDeps => ({
  ...manageDeps(runtime),
  grants: new DynamoDbGrantStore(runtime.documentClient, runtime.config.tables),
  uploads: lazyUploadStore(runtime),
})

/** CreateGrantBatch: the upload route's deps and the commit's use case. */
export const createGrantBatchDeps = (
  runtime: Runtime,
  options: BatchDepsOptions = {},
): CreateGrantBatchDeps => ({
  ...batchUploadDeps(runtime),
  commit: makeBatchCommit({
    batches: new DynamoDbBatchStore(runtime.documentClient, runtime.config.tables),
    queue: batchRowsQueue(runtime, options.queue),
    clock: clockOf(runtime),
    chunkRows: options.chunkRows,
  }),
})

/** GetGrantBatch: the batch and its chunks. */
export const getGrantBatchDeps = (runtime: Runtime): GetGrantBatchDeps => ({
  ...batchViewDeps(runtime),
  batches: new DynamoDbBatchStore(runtime.documentClient, runtime.config.tables),
})

/** ListGrantBatches: the program's batches, newest first. */
export const listGrantBatchesDeps = (runtime: Runtime): ListGrantBatchesDeps => ({
  ...batchViewDeps(runtime),
  listing: new DynamoDbBatchListing(runtime.documentClient, runtime.config.tables),
})

/** CancelGrantBatch: the cancel's use case (a stalled batch's chunks go to the queue again). */
export const cancelGrantBatchDeps = (
  runtime: Runtime,
  options: Pick<BatchDepsOptions, 'queue'> = {},
): CancelGrantBatchDeps => {
  const { documentClient: client, config } = runtime
  const view = batchViewDeps(runtime)
  return {
    ...view,
    cancel: makeBatchCancel({
      listing: new DynamoDbBatchListing(client, config.tables),
      batches: new DynamoDbBatchStore(client, config.tables),
      queue: batchRowsQueue(runtime, options.queue),
      clock: view.clock,
    }),
  }
}
