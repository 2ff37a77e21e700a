import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyStructuredResultV2,
} from 'aws-lambda'
import { Forbidden, IssuerNotFound, Unauthenticated } from '../domain/errors'
import { idPattern } from '../domain/ids'
import { type Actor, type MembershipRecord, roleAllows } from '../domain/people'
import { routeById } from '../routes'
import type { Deadline } from '../runtime/deadline'
import type { MembershipReader } from '../stores/memberships.store'
import { httpHandler } from './http-handler'
import type { JsonEvent } from './middleware'
import { requestIdOf } from './middleware'

/** A management route's request without a body: the path, the query and the token's claims. */
export type SignedInEvent = APIGatewayProxyEventV2WithJWTAuthorizer
/** A management route's request with a JSON body (already parsed) and the token's claims. */
export type ManageBodyEvent = JsonEvent & Pick<SignedInEvent, 'requestContext'>
export type ManageEvent = SignedInEvent | ManageBodyEvent
/** What a management route answers. */
export type ManageAnswer = APIGatewayProxyStructuredResultV2
type Result = ManageAnswer

/** What every management route needs: the memberships, read on each request (wiring/manage.deps.ts). */
export type ManageDeps = { readonly memberships: MembershipReader }

/** What a management route's logic receives once the person is known and allowed. */
export type ManageRequest<E> = {
  event: E
  deadline: Deadline
  requestId: string
  /** The signed-in person. */
  sub: string
  /**
   * The person's membership of the path's issuer, read from DynamoDB on this very request (never
   * from token claims). Absent only on `signed-in` routes.
   */
  membership?: MembershipRecord
  /** The person as an audit entry names them (access tokens carry no e-mail: the membership's). */
  actor?: Extract<Actor, { kind: 'person' }>
}

const ISSUER_ID = idPattern('issuer')

/**
 * A management route: the gateway's authorizer has checked the token; this checks, on every
 * request, that the person belongs to the path's issuer with at least the route's role
 * (functions/routes.ts). Not a member, or an issuer that does not exist: 404, the same answer.
 * A role too low: 403. Nothing is read or written for the route before these pass.
 */
export const manageHandler = <E extends ManageEvent = APIGatewayProxyEventV2WithJWTAuthorizer>(
  routeId: string,
  deps: ManageDeps,
  handle: (request: ManageRequest<E>) => Promise<Result>,
  options: { jsonBodyMaxBytes?: number } = {},
) => {
  const route = routeById(routeId)
  if (route.auth !== 'user' || route.role === undefined) {
    throw new Error(`Route ${routeId} is not a management route with a role`)
  }
  const needed = route.role
  return httpHandler<APIGatewayProxyEventV2 | JsonEvent>(async (event, deadline, context) => {
    const claims = (event as ManageEvent).requestContext.authorizer?.jwt?.claims ?? {}
    const sub = typeof claims.sub === 'string' && claims.sub.length > 0 ? claims.sub : undefined
    if (!sub) throw new Unauthenticated()
    const requestId = requestIdOf(event, context)
    const base = { event: event as E, deadline, requestId, sub }
    if (needed === 'signed-in') return handle(base)

    const issuerId = event.pathParameters?.issuerId ?? ''
    if (!ISSUER_ID.test(issuerId)) throw new IssuerNotFound(issuerId)
    const membership = await deps.memberships.get(issuerId, sub, { signal: deadline.signal })
    if (!membership) throw new IssuerNotFound(issuerId)
    if (!roleAllows(membership.role, needed)) throw new Forbidden(membership.role, needed)
    return handle({
      ...base,
      membership,
      actor: { kind: 'person', sub, email: membership.email },
    })
  }, options)
}
