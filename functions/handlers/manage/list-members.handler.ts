import { runtimeFrom } from '../../composition'
import { makeListMembersHandler } from '../../http/routes/manage/list-members.route'
import { membersDeps } from '../../wiring/members.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeListMembersHandler(membersDeps(runtimeFrom(process.env)))
