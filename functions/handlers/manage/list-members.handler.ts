import { runtimeFrom } from '../../composition'
import { makeListMembersHandler } from '../../http/routes/manage/list-members.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeListMembersHandler(runtimeFrom(process.env))
