import { runtimeFrom } from '../../composition'
import { makeInviteMemberHandler } from '../../http/routes/manage/invite-member.route'
import { memberInvitationsDeps } from '../../wiring/member-invitations.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeInviteMemberHandler(memberInvitationsDeps(runtimeFrom(process.env)))
