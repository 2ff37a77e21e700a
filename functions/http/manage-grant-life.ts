import type { GrantLife } from '../core/grant-life'
import { GrantNotFound } from '../domain/errors'
import type { GrantRecord } from '../domain/grant'
import type { GrantActor } from '../domain/grant-lifecycle'
import { toManagedGrant } from './grant-view'
import {
  type ManageAnswer,
  type ManageDeps,
  type ManageEvent,
  type ManageRequest,
  manageHandler,
  type SignedInEvent,
} from './manage-handler'
import { manageJson } from './manage-http'

/**
 * What the management routes over one grant share (its page, cancel, resend, correct the address):
 * the membership and role check of the route (manageHandler), the grant id checked before any
 * read, another issuer's grant answered as a missing one, and the member as the actor of the
 * change and of its audit entry.
 */

const GRANT_ID = /^gr_[0-9a-z]{26}$/

/** What the routes that change a grant need: the grant's life (wiring/manage-grants.deps.ts). */
export type GrantLifeRouteDeps = ManageDeps & { readonly life: GrantLife }

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

/** A management route over the path's grant of the member's issuer. */
export const grantRoute = <E extends ManageEvent = SignedInEvent>(
  deps: ManageDeps,
  routeId: string,
  handle: (request: GrantLifeRequest<E>) => Promise<ManageAnswer>,
  options: { jsonBodyMaxBytes?: number } = {},
) =>
  manageHandler<E>(
    routeId,
    deps,
    async (request) => {
      if (!request.membership || !request.actor) throw new Error(`${routeId} needs a member`)
      const grantId = grantIdOf(request.event)
      try {
        return await handle({
          ...request,
          issuerId: request.membership.issuerId,
          grantId,
          actor: { kind: 'person', sub: request.actor.sub, email: request.actor.email },
        })
      } catch (error) {
        if (error instanceof GrantNotFound) throw grantNotInIssuer(grantId)
        throw error
      }
    },
    options,
  )

/** Who changes which grant, with its audit entry: the input of every change of the grant's life. */
export const grantChangeOf = (request: GrantLifeRequest<unknown>) => ({
  grantId: request.grantId,
  issuerId: request.issuerId,
  actor: request.actor,
  audit: { requestId: request.requestId },
})

type GrantChange = ReturnType<typeof grantChangeOf>

/**
 * A route that makes one change of the grant's life (cancel, resend) and answers with the grant
 * as it is after it.
 */
export const grantChangeRoute =
  (routeId: string, change: (life: GrantLife, input: GrantChange) => Promise<GrantRecord>) =>
  ({ life, ...deps }: GrantLifeRouteDeps) =>
    grantRoute(deps, routeId, async (request) =>
      grantAnswer(await change(life, grantChangeOf(request))),
    )

/** The grant as the management API shows it, with its timeline. */
export const grantAnswer = (grant: Parameters<typeof toManagedGrant>[0]) =>
  manageJson(200, toManagedGrant(grant))
