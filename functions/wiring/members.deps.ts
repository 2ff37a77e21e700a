import type { Runtime } from '../composition'
import { type MembersDeps, makeMembers } from '../core/members'
import type { MemberRouteDeps } from '../http/members-route'
import { logger } from '../runtime/logger'
import { DynamoDbMembersStore } from '../stores/members.dynamodb'
import { manageDeps } from './manage.deps'

const NO_IDENTITY = () => {
  throw new Error('This function has no identity provider: its route never needs one.')
}

/**
 * The member routes' deps: the membership check and the member use cases (core/members.ts) over
 * the runtime's client. Only the inviting routes pass an identity provider and mail
 * (member-invitations.deps.ts), so the other functions' bundles carry neither.
 */
export const membersDeps = (
  runtime: Runtime,
  people: Pick<MembersDeps, 'identity' | 'mail'> = { identity: NO_IDENTITY },
): MemberRouteDeps => ({
  ...manageDeps(runtime),
  members: makeMembers({
    store: new DynamoDbMembersStore(runtime.documentClient, runtime.config.tables),
    ...people,
    now: () => runtime.clock.now(),
    warn: (message, details) => logger.warn(message, details),
  }),
})
