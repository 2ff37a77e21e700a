import type { Runtime } from '../../../composition'
import { lazyIdentityProvider, lazyMemberMail } from '../../../identity/identity-config'
import { manageHandler } from '../../manage-handler'
import {
  callerOf,
  type MemberEvent,
  memberDepsOf,
  memberJson,
  memberRoute,
  pathOf,
  refuseQuery,
} from '../../members-route'

/**
 * `POST /manage/issuers/{issuerId}/members/{memberId}/resend` (owner): a new temporary password
 * and invitation e-mail for a pending invitation -> `200` the membership. No body is read.
 */
export const makeResendInvitationHandler = (runtime: Runtime) => {
  const { reader, members } = memberRoute({
    ...memberDepsOf(runtime),
    identity: lazyIdentityProvider(runtime.config.identity),
    mail: lazyMemberMail(runtime.config.mail),
  })
  return manageHandler<MemberEvent>(
    'ResendInvitation',
    { memberships: reader },
    async (request) => {
      refuseQuery(request.event)
      const { issuerId, memberId } = pathOf(request.event)
      return memberJson(200, await members.resend(issuerId, memberId, callerOf(request)))
    },
  )
}
