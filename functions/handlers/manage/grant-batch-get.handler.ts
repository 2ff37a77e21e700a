import { runtimeFrom } from '../../composition'
import { makeGetGrantBatchHandler } from '../../http/routes/manage/grant-batch-get.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeGetGrantBatchHandler(runtimeFrom(process.env))
