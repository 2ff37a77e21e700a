import { runtimeFrom } from '../../composition'
import { makeRemoveMemberHandler } from '../../http/routes/manage/remove-member.route'
import { membersDeps } from '../../wiring/members.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeRemoveMemberHandler(membersDeps(runtimeFrom(process.env)))
