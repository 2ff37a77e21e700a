import { runtimeFrom } from '../../composition'
import { makeCancelGrantBatchHandler } from '../../http/routes/manage/grant-batch-cancel.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeCancelGrantBatchHandler(runtimeFrom(process.env))
