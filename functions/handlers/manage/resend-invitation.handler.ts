import { runtimeFrom } from '../../composition'
import { makeResendInvitationHandler } from '../../http/routes/manage/resend-invitation.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeResendInvitationHandler(runtimeFrom(process.env))
