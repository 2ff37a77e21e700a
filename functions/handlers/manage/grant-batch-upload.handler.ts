import { runtimeFrom } from '../../composition'
import { makeCreateGrantBatchUploadHandler } from '../../http/routes/manage/grant-batch-upload.route'
import { batchUploadDeps } from '../../wiring/batches.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeCreateGrantBatchUploadHandler(batchUploadDeps(runtimeFrom(process.env)))
