import type { Runtime } from '../composition'
import type { MemberRouteDeps } from '../http/members-route'
import { lazyIdentityProvider, lazyMemberMail } from '../identity/identity-config'
import { membersDeps } from './members.deps'

/** InviteMember's and ResendInvitation's deps: the member use cases with the people directory and mail. */
export const memberInvitationsDeps = (runtime: Runtime): MemberRouteDeps =>
  membersDeps(runtime, {
    identity: lazyIdentityProvider(runtime.config.identity),
    mail: lazyMemberMail(runtime.config.mail),
  })
