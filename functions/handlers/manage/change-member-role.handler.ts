import { runtimeFrom } from '../../composition'
import { makeChangeMemberRoleHandler } from '../../http/routes/manage/change-member-role.route'
import { membersDeps } from '../../wiring/members.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeChangeMemberRoleHandler(membersDeps(runtimeFrom(process.env)))
