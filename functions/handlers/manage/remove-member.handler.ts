import { runtimeFrom } from '../../composition'
import { makeRemoveMemberHandler } from '../../http/routes/manage/remove-member.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeRemoveMemberHandler(runtimeFrom(process.env))
