import { runtimeFrom } from '../../composition'
import { makeManageListGrantsHandler } from '../../http/routes/manage/grants-list.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeManageListGrantsHandler(runtimeFrom(process.env))
