import { runtimeFrom } from '../../composition'
import { makeListKeysHandler } from '../../http/routes/manage/keys-list.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeListKeysHandler(runtimeFrom(process.env))
