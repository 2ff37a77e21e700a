import { MEMBER_BODY_MAX_BYTES } from '../../../domain/member-request.schema'
import { callerOf, memberJson, memberRoute } from '../../members-route'

/** `PATCH /manage/issuers/{issuerId}/members/{memberId}` (owner): `{ role }` -> the membership. */
export const makeChangeMemberRoleHandler = memberRoute(
  'ChangeMemberRole',
  async (request, { issuerId, memberId, members }) => {
    const body = request.event.body
    const { member } = await members.changeRole(issuerId, memberId, body, callerOf(request))
    return memberJson(200, member)
  },
  { jsonBodyMaxBytes: MEMBER_BODY_MAX_BYTES },
)
