import { makeCancelGrantBatchHandler } from '../../http/routes/manage/grant-batch-cancel.route'
import { cancelGrantBatchDeps } from '../../wiring/batches.deps'
import { sendingRuntime } from '../sending-runtime'

/**
 * Lambda's entry for CancelGrantBatch: the runtime and its queues' senders (functions/routes.ts
 * `sends`), then the route's deps, are built once, at cold start; a missing queue URL stops it at init.
 */
export const handler = makeCancelGrantBatchHandler(
  cancelGrantBatchDeps(sendingRuntime('CancelGrantBatch', process.env)),
)
