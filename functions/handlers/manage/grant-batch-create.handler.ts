import { runtimeFrom } from '../../composition'
import { makeCreateGrantBatchHandler } from '../../http/routes/manage/grant-batch-create.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeCreateGrantBatchHandler(runtimeFrom(process.env))
