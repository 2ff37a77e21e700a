import { runtimeFrom } from '../../composition'
import { makeListGrantBatchesHandler } from '../../http/routes/manage/grant-batches-list.route'
import { listGrantBatchesDeps } from '../../wiring/batches.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeListGrantBatchesHandler(listGrantBatchesDeps(runtimeFrom(process.env)))
