import { config } from '../../config'
import { manageHandler } from '../../http/manage-handler'
import {
  callerOf,
  type MemberEvent,
  type MemberRouteDeps,
  memberRoute,
  pathOf,
  refuseQuery,
} from '../../http/members-route'
import { documentClient } from '../../stores/dynamodb-client'

/**
 * `DELETE /manage/issuers/{issuerId}/members/{memberId}` (owner): removes a member or withdraws
 * a pending invitation -> `204`.
 */
export const makeRemoveMemberHandler = (deps: MemberRouteDeps) => {
  const { reader, members } = memberRoute(deps)
  return manageHandler<MemberEvent>('RemoveMember', { memberships: reader }, async (request) => {
    refuseQuery(request.event)
    const { issuerId, memberId } = pathOf(request.event)
    await members.remove(issuerId, memberId, callerOf(request))
    return { statusCode: 204, headers: { 'cache-control': 'no-store' } }
  })
}

export const handler = makeRemoveMemberHandler({ client: documentClient, tables: config.tables })
