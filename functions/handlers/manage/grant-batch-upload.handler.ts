import { runtimeFrom } from '../../composition'
import { makeCreateGrantBatchUploadHandler } from '../../http/routes/manage/grant-batch-upload.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeCreateGrantBatchUploadHandler(runtimeFrom(process.env))
