import { runtimeFrom } from '../../composition'
import { makeManageGetGrantHandler } from '../../http/routes/manage/grant-get.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeManageGetGrantHandler(runtimeFrom(process.env))
