import { config } from '../../config'
import { manageHandler } from '../../http/manage-handler'
import { MEMBER_BODY_MAX_BYTES } from '../../http/member-request.schema'
import {
  callerOf,
  type MemberEvent,
  type MemberRouteDeps,
  memberJson,
  memberLocation,
  memberRoute,
  pathOf,
  refuseQuery,
} from '../../http/members-route'
import { lazyIdentityProvider, lazyMemberMail } from '../../identity/identity-config'
import { documentClient } from '../../stores/dynamodb-client'

/**
 * `POST /manage/issuers/{issuerId}/members` (owner): `{ email, role }` -> `201` the membership,
 * `invited`, the same answer for a new address and for one that already has an account (see
 * core/members.ts: who gets which e-mail).
 */
export const makeInviteMemberHandler = (deps: MemberRouteDeps) => {
  const { reader, members } = memberRoute(deps)
  return manageHandler<MemberEvent>(
    'InviteMember',
    { memberships: reader },
    async (request) => {
      refuseQuery(request.event)
      const { issuerId } = pathOf(request.event)
      const { member } = await members.invite(issuerId, request.event.body, callerOf(request))
      return memberJson(201, member, { location: memberLocation(issuerId, member.memberId) })
    },
    { jsonBodyMaxBytes: MEMBER_BODY_MAX_BYTES },
  )
}

export const handler = makeInviteMemberHandler({
  client: documentClient,
  tables: config.tables,
  identity: lazyIdentityProvider(),
  mail: lazyMemberMail(),
})
