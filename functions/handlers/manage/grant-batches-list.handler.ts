import { runtimeFrom } from '../../composition'
import { makeListGrantBatchesHandler } from '../../http/routes/manage/grant-batches-list.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeListGrantBatchesHandler(runtimeFrom(process.env))
