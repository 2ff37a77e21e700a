import type {
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyStructuredResultV2,
} from 'aws-lambda'
import type { Runtime } from '../composition'
import { type GrantLife, makeGrantLife } from '../core/grant-life'
import { GrantNotFound } from '../domain/errors'
import type { GrantActor } from '../domain/grant-lifecycle'
import { DynamoDbGrantLifeStore } from '../stores/grant-life.dynamodb'
import { DynamoDbMembershipReader } from '../stores/memberships.dynamodb'
import { toManagedGrant } from './grant-view'
import { type ManageEvent, type ManageRequest, manageHandler } from './manage-handler'
import { manageJson } from './manage-http'

/**
 * What the management routes over a grant's life share (cancel, resend, correct the address, the
 * grant's page): the membership and role check of the route (manageHandler), the grant id checked
 * before any read, the grant's life (functions/core/grant-life.ts) built once per function, and
 * the member as the actor of the change and of its audit entry.
 */

const GRANT_ID = /^gr_[0-9a-z]{26}$/

/** The management API's wording of the same 404: no such grant in this issuer. */
export const grantNotInIssuer = (grantId: string) => {
  const error = new GrantNotFound(grantId)
  error.message = `No grant ${JSON.stringify(grantId)} exists in this issuer.`
  return error
}

/** The path's grant id, checked offline: a malformed one answers exactly like an unknown one. */
export const grantIdOf = (event: { pathParameters?: Record<string, string | undefined> }) => {
  const id = event.pathParameters?.grantId ?? ''
  if (!GRANT_ID.test(id)) throw grantNotInIssuer(id)
  return id
}

export type GrantLifeRequest<E> = ManageRequest<E> & {
  issuerId: string
  grantId: string
  actor: Extract<GrantActor, { kind: 'person' }>
}

export const grantLifeRoute = <E extends ManageEvent = APIGatewayProxyEventV2WithJWTAuthorizer>(
  runtime: Runtime,
  routeId: string,
  handle: (
    request: GrantLifeRequest<E>,
    life: GrantLife,
  ) => Promise<APIGatewayProxyStructuredResultV2>,
  options: { jsonBodyMaxBytes?: number } = {},
) => {
  const { documentClient, config, clock } = runtime
  const memberships = new DynamoDbMembershipReader(documentClient, config.tables)
  const life = makeGrantLife({
    store: new DynamoDbGrantLifeStore(documentClient, config.tables),
    clock: () => clock.now(),
  })
  return manageHandler<E>(
    routeId,
    { memberships },
    async (request) => {
      if (!request.membership || !request.actor) throw new Error(`${routeId} needs a member`)
      const grantId = grantIdOf(request.event)
      try {
        return await handle(
          {
            ...request,
            issuerId: request.membership.issuerId,
            grantId,
            actor: { kind: 'person', sub: request.actor.sub, email: request.actor.email },
          },
          life,
        )
      } catch (error) {
        if (error instanceof GrantNotFound) throw grantNotInIssuer(grantId)
        throw error
      }
    },
    options,
  )
}

/** The grant as the management API shows it, with its timeline. */
export const grantAnswer = (grant: Parameters<typeof toManagedGrant>[0]) =>
  manageJson(200, toManagedGrant(grant))
