import { makeCancelGrantBatchHandler } from '../../http/routes/manage/grant-batch-cancel.route'
import { sendingRuntime } from '../sending-runtime'

/**
 * Lambda's entry for CancelGrantBatch: the runtime and its queues' senders (functions/routes.ts `sends`) are
 * built once, at cold start; a missing queue URL stops it at init.
 */
export const handler = makeCancelGrantBatchHandler(sendingRuntime('CancelGrantBatch', process.env))
