import { callerOf, memberJson, memberRoute } from '../../members-route'

/**
 * `POST /manage/issuers/{issuerId}/members/{memberId}/resend` (owner): a new temporary password
 * and invitation e-mail for a pending invitation -> `200` the membership. No body is read. Its
 * deps carry the identity provider and the mail (wiring/member-invitations.deps.ts).
 */
export const makeResendInvitationHandler = memberRoute(
  'ResendInvitation',
  async (request, { issuerId, memberId, members }) =>
    memberJson(200, await members.resend(issuerId, memberId, callerOf(request))),
)
