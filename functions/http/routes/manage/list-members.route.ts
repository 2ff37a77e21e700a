import { memberJson, memberRoute } from '../../members-route'

/** `GET /manage/issuers/{issuerId}/members` (viewer): members and pending invitations. */
export const makeListMembersHandler = memberRoute(
  'ListMembers',
  async (request, { issuerId, members }) => {
    const list = await members.list(issuerId, { signal: request.deadline.signal })
    return memberJson(200, { members: list })
  },
)
