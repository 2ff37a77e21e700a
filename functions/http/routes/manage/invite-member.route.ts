import type { Runtime } from '../../../composition'
import { MEMBER_BODY_MAX_BYTES } from '../../../domain/member-request.schema'
import { lazyIdentityProvider, lazyMemberMail } from '../../../identity/identity-config'
import { manageHandler } from '../../manage-handler'
import {
  callerOf,
  type MemberEvent,
  memberDepsOf,
  memberJson,
  memberLocation,
  memberRoute,
  pathOf,
  refuseQuery,
} from '../../members-route'

/**
 * `POST /manage/issuers/{issuerId}/members` (owner): `{ email, role }` -> `201` the membership,
 * `invited`, the same answer for a new address and for one that already has an account (see
 * core/members.ts: who gets which e-mail).
 */
export const makeInviteMemberHandler = (runtime: Runtime) => {
  const { reader, members } = memberRoute({
    ...memberDepsOf(runtime),
    identity: lazyIdentityProvider(runtime.config.identity),
    mail: lazyMemberMail(runtime.config.mail),
  })
  return manageHandler<MemberEvent>(
    'InviteMember',
    { memberships: reader },
    async (request) => {
      refuseQuery(request.event)
      const { issuerId } = pathOf(request.event)
      const { member } = await members.invite(issuerId, request.event.body, callerOf(request))
      return memberJson(201, member, { location: memberLocation(issuerId, member.memberId) })
    },
    { jsonBodyMaxBytes: MEMBER_BODY_MAX_BYTES },
  )
}
