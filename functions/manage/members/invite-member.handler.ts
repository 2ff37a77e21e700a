import { config } from '../../config'
import { lazyIdentityProvider, lazyMemberMail } from '../../people/identity-config'
import { MEMBER_BODY_MAX_BYTES } from '../../people/member-request.schema'
import { documentClient } from '../../shared/dynamodb'
import { manageHandler } from '../manage-handler'
import {
  callerOf,
  type MemberEvent,
  type MemberRouteDeps,
  memberJson,
  memberLocation,
  memberRoute,
  pathOf,
  refuseQuery,
} from './members-route'

/**
 * `POST /manage/issuers/{issuerId}/members` (owner): `{ email, role }` -> `201` the membership,
 * `invited`, the same answer for a new address and for one that already has an account (see
 * members.use-cases.ts: who gets which e-mail).
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
