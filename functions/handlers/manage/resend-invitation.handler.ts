import { runtimeFrom } from '../../composition'
import { makeResendInvitationHandler } from '../../http/routes/manage/resend-invitation.route'
import { memberInvitationsDeps } from '../../wiring/member-invitations.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeResendInvitationHandler(memberInvitationsDeps(runtimeFrom(process.env)))
