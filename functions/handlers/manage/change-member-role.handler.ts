import { runtimeFrom } from '../../composition'
import { makeChangeMemberRoleHandler } from '../../http/routes/manage/change-member-role.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeChangeMemberRoleHandler(runtimeFrom(process.env))
