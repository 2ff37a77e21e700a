import { runtimeFrom } from '../../composition'
import { makeRevokeKeyHandler } from '../../http/routes/manage/key-revoke.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeRevokeKeyHandler(runtimeFrom(process.env))
