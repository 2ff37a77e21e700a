import { config } from '../../config'
import { manageHandler } from '../../http/manage-handler'
import { MEMBER_BODY_MAX_BYTES } from '../../http/member-request.schema'
import {
  callerOf,
  type MemberEvent,
  type MemberRouteDeps,
  memberJson,
  memberRoute,
  pathOf,
  refuseQuery,
} from '../../http/members-route'
import { documentClient } from '../../stores/dynamodb-client'

/** `PATCH /manage/issuers/{issuerId}/members/{memberId}` (owner): `{ role }` -> the membership. */
export const makeChangeMemberRoleHandler = (deps: MemberRouteDeps) => {
  const { reader, members } = memberRoute(deps)
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

export const handler = makeChangeMemberRoleHandler({
  client: documentClient,
  tables: config.tables,
})
