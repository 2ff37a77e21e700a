import { MEMBER_BODY_MAX_BYTES } from '../../../domain/member-request.schema'
import { callerOf, memberJson, memberLocation, memberRoute } from '../../members-route'

/**
 * `POST /manage/issuers/{issuerId}/members` (owner): `{ email, role }` -> `201` the membership,
 * `invited`, the same answer for a new address and for one that already has an account (see
 * core/members.ts: who gets which e-mail). Its deps carry the identity provider and the mail
 * (wiring/member-invitations.deps.ts).
 */
export const makeInviteMemberHandler = memberRoute(
  'InviteMember',
  async (request, { issuerId, members }) => {
    const { member } = await members.invite(issuerId, request.event.body, callerOf(request))
    return memberJson(201, member, { location: memberLocation(issuerId, member.memberId) })
  },
  { jsonBodyMaxBytes: MEMBER_BODY_MAX_BYTES },
)
