import { runtimeFrom } from '../../composition'
import { makeInviteMemberHandler } from '../../http/routes/manage/invite-member.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeInviteMemberHandler(runtimeFrom(process.env))
