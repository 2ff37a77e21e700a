import { runtimeFrom } from '../composition'
import { makeBatchWorkerHandler } from '../wiring/grant-batch-worker.consumer'

/**
 * Lambda's entry for GrantBatchWorker (functions/consumers.ts): the runtime is built once, at cold
 * start, from the function's environment; SQS delivers one chunk's message at a time.
 */
export const handler = makeBatchWorkerHandler(runtimeFrom(process.env))
