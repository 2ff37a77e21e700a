import { makeCreateGrantBatchHandler } from '../../http/routes/manage/grant-batch-create.route'
import { createGrantBatchDeps } from '../../wiring/batches.deps'
import { sendingRuntime } from '../sending-runtime'

/**
 * Lambda's entry for CreateGrantBatch: the runtime and its queues' senders (functions/routes.ts
 * `sends`), then the route's deps, are built once, at cold start; a missing queue URL stops it at init.
 */
export const handler = makeCreateGrantBatchHandler(
  createGrantBatchDeps(sendingRuntime('CreateGrantBatch', process.env)),
)
