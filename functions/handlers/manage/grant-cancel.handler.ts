import { runtimeFrom } from '../../composition'
import { makeManageCancelGrantHandler } from '../../http/routes/manage/grant-cancel.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeManageCancelGrantHandler(runtimeFrom(process.env))
