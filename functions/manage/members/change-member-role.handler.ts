import { config } from '../../config'
import { MEMBER_BODY_MAX_BYTES } from '../../people/member-request.schema'
import { documentClient } from '../../shared/dynamodb'
import { manageHandler } from '../manage-handler'
import {
  callerOf,
  type MemberEvent,
  type MemberRouteDeps,
  memberJson,
  memberRoute,
  pathOf,
  refuseQuery,
} from './members-route'

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
