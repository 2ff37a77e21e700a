import type { Runtime } from '../../../composition'
import { manageHandler } from '../../manage-handler'
import {
  type MemberEvent,
  memberDepsOf,
  memberJson,
  memberRoute,
  pathOf,
  refuseQuery,
} from '../../members-route'

/** `GET /manage/issuers/{issuerId}/members` (viewer): members and pending invitations. */
export const makeListMembersHandler = (runtime: Runtime) => {
  const { reader, members } = memberRoute(memberDepsOf(runtime))
  return manageHandler<MemberEvent>('ListMembers', { memberships: reader }, async (request) => {
    refuseQuery(request.event)
    const { issuerId } = pathOf(request.event)
    const list = await members.list(issuerId, { signal: request.deadline.signal })
    return memberJson(200, { members: list })
  })
}
