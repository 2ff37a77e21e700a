import { callerOf, memberRoute } from '../../members-route'

/**
 * `DELETE /manage/issuers/{issuerId}/members/{memberId}` (owner): removes a member or withdraws
 * a pending invitation -> `204`.
 */
export const makeRemoveMemberHandler = memberRoute(
  'RemoveMember',
  async (request, { issuerId, memberId, members }) => {
    await members.remove(issuerId, memberId, callerOf(request))
    return { statusCode: 204, headers: { 'cache-control': 'no-store' } }
  },
)
