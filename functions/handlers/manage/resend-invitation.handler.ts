import { config } from '../../config'
import { manageHandler } from '../../http/manage-handler'
import {
  callerOf,
  type MemberEvent,
  type MemberRouteDeps,
  memberJson,
  memberRoute,
  pathOf,
  refuseQuery,
} from '../../http/members-route'
import { lazyIdentityProvider, lazyMemberMail } from '../../identity/identity-config'
import { documentClient } from '../../stores/dynamodb-client'

/**
 * `POST /manage/issuers/{issuerId}/members/{memberId}/resend` (owner): a new temporary password
 * and invitation e-mail for a pending invitation -> `200` the membership. No body is read.
 */
export const makeResendInvitationHandler = (deps: MemberRouteDeps) => {
  const { reader, members } = memberRoute(deps)
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

export const handler = makeResendInvitationHandler({
  client: documentClient,
  tables: config.tables,
  identity: lazyIdentityProvider(),
  mail: lazyMemberMail(),
})
