import type { Runtime } from '../../../composition'
import { MEMBER_BODY_MAX_BYTES } from '../../../domain/member-request.schema'
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

/** `PATCH /manage/issuers/{issuerId}/members/{memberId}` (owner): `{ role }` -> the membership. */
export const makeChangeMemberRoleHandler = (runtime: Runtime) => {
  const { reader, members } = memberRoute(memberDepsOf(runtime))
  return manageHandler<MemberEvent>(
    'ChangeMemberRole',
    { memberships: reader },
    async (request) => {
      refuseQuery(request.event)
      const { issuerId, memberId } = pathOf(request.event)
      const { member } = await members.changeRole(
        issuerId,
        memberId,
        request.event.body,
        callerOf(request),
      )
      return memberJson(200, member)
    },
    { jsonBodyMaxBytes: MEMBER_BODY_MAX_BYTES },
  )
}
