import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import type { Runtime } from '../composition'
import { type Caller, makeMembers } from '../core/members'
import type { IdentityProvider } from '../identity/identity-provider'
import type { Mailer } from '../mail/mailer'
import { logger } from '../runtime/logger'
import { DynamoDbMembersStore, type MembersTableNames } from '../stores/members.dynamodb'
import { DynamoDbMembershipReader } from '../stores/memberships.dynamodb'
import type { ManageRequest } from './manage-handler'
import { queryOf } from './manage-http'
import type { JsonEvent } from './middleware'

/** A member route's event: a JSON body (already parsed) or none, and the authorizer's claims. */
export type MemberEvent = JsonEvent &
  Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/** What a member route's function is built from: its entry point's runtime, or a test's own. */
export type MemberRouteDeps = {
  client: DynamoDBDocumentClient
  tables: MembersTableNames
  /** Only the functions that invite or resend are given one. */
  identity?: () => IdentityProvider
  /** The same two, for the e-mail to a person with an account who is added to the issuer. */
  mail?: () => { mailer: Mailer; consoleUrl: string }
  now: () => number
}

/** A member route's deps from its entry point's runtime (the inviting routes add pool and mail). */
export const memberDepsOf = (runtime: Runtime): MemberRouteDeps => ({
  client: runtime.documentClient,
  tables: runtime.config.tables,
  now: () => runtime.clock.now(),
})

const NO_IDENTITY = () => {
  throw new Error('This function has no identity provider: its route never needs one.')
}

/** The membership check's reader and the member use cases, over the same client and tables. */
export const memberRoute = (deps: MemberRouteDeps) => ({
  reader: new DynamoDbMembershipReader(deps.client, deps.tables),
  members: makeMembers({
    store: new DynamoDbMembersStore(deps.client, deps.tables),
    identity: deps.identity ?? NO_IDENTITY,
    ...(deps.mail ? { mail: deps.mail } : {}),
    now: deps.now,
    warn: (message, details) => logger.warn(message, details),
  }),
})

/** The path's ids (the management handler has checked the issuer id and the caller's role). */
export const pathOf = (event: MemberEvent) => ({
  issuerId: event.pathParameters?.issuerId ?? '',
  memberId: event.pathParameters?.memberId ?? '',
})

/** The signed-in person as the audit entry names them, this request's id and deadline. */
export const callerOf = (request: ManageRequest<MemberEvent>): Caller => {
  if (!request.actor) throw new Error('A member change needs the person who makes it')
  return { actor: request.actor, requestId: request.requestId, signal: request.deadline.signal }
}

export const memberLocation = (issuerId: string, memberId: string) =>
  `/manage/issuers/${encodeURIComponent(issuerId)}/members/${encodeURIComponent(memberId)}`

/**
 * The member routes take no query parameter: one sent is refused and named (as an unknown body
 * field is, and as the other management routes do), before anything is read.
 */
/** The member routes take no query parameters: any is refused and named. */
export const refuseQuery = (event: MemberEvent) => {
  queryOf(event, [])
}

/** Answers about the people of an issuer, for one signed-in person: no shared cache keeps them. */
export { manageJson as memberJson } from './manage-http'
