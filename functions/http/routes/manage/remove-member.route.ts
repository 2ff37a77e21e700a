import type { Runtime } from '../../../composition'
import { manageHandler } from '../../manage-handler'
import {
  callerOf,
  type MemberEvent,
  memberDepsOf,
  memberRoute,
  pathOf,
  refuseQuery,
} from '../../members-route'

/**
 * `DELETE /manage/issuers/{issuerId}/members/{memberId}` (owner): removes a member or withdraws
 * a pending invitation -> `204`.
 */
export const makeRemoveMemberHandler = (runtime: Runtime) => {
  const { reader, members } = memberRoute(memberDepsOf(runtime))
  return manageHandler<MemberEvent>('RemoveMember', { memberships: reader }, async (request) => {
    refuseQuery(request.event)
    const { issuerId, memberId } = pathOf(request.event)
    await members.remove(issuerId, memberId, callerOf(request))
    return { statusCode: 204, headers: { 'cache-control': 'no-store' } }
  })
}
