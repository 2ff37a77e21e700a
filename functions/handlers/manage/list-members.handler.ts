import { config } from '../../config'
import { manageHandler } from '../../http/manage-handler'
import {
  type MemberEvent,
  type MemberRouteDeps,
  memberJson,
  memberRoute,
  pathOf,
  refuseQuery,
} from '../../http/members-route'
import { documentClient } from '../../stores/dynamodb-client'

/** `GET /manage/issuers/{issuerId}/members` (viewer): members and pending invitations. */
export const makeListMembersHandler = (deps: MemberRouteDeps) => {
  const { reader, members } = memberRoute(deps)
  return manageHandler<MemberEvent>('ListMembers', { memberships: reader }, async (request) => {
    refuseQuery(request.event)
    const { issuerId } = pathOf(request.event)
    const list = await members.list(issuerId, { signal: request.deadline.signal })
    return memberJson(200, { members: list })
  })
}

export const handler = makeListMembersHandler({ client: documentClient, tables: config.tables })
