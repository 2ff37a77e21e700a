import { runtimeFrom } from '../../composition'
import { makeGetGrantBatchHandler } from '../../http/routes/manage/grant-batch-get.route'
import { getGrantBatchDeps } from '../../wiring/batches.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeGetGrantBatchHandler(getGrantBatchDeps(runtimeFrom(process.env)))
