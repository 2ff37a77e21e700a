import { runtimeFrom } from '../composition'
import { makeBatchWorkerHandler } from '../core/grant-batch-worker.factory'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeBatchWorkerHandler(runtimeFrom(process.env))
