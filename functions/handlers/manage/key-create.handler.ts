import { runtimeFrom } from '../../composition'
import { makeCreateKeyHandler } from '../../http/routes/manage/key-create.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeCreateKeyHandler(runtimeFrom(process.env))
