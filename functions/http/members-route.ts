import type { Caller, Members } from '../core/members'
import {
  type ManageBodyEvent,
  type ManageDeps,
  type ManageRequest,
  manageHandler,
} from './manage-handler'
import { type ManageLogic, type ManageRouteOptions, queryOf } from './manage-http'

/** A member route's event: a JSON body (already parsed) or none, and the authorizer's claims. */
export type MemberEvent = ManageBodyEvent

/**
 * What a member route needs: the membership check's reader and the member use cases, built by
 * wiring/members.deps.ts (with the identity provider and mail only for the inviting routes).
 */
export type MemberRouteDeps = ManageDeps & { readonly members: Members }

/** The path's ids (the management handler has checked the issuer id and the caller's role). */
export type MemberPath = { issuerId: string; memberId: string }

/**
 * A member route, made over its deps: the membership and role check of its route (manageHandler),
 * then any query parameter refused and named (the member routes take none, as an unknown body
 * field is refused) before anything is read; then `handle` with the path's ids and the use cases.
 */
export const memberRoute =
  (
    routeId: string,
    handle: ManageLogic<MemberEvent, MemberPath & { members: Members }>,
    options: ManageRouteOptions = {},
  ) =>
  (deps: MemberRouteDeps) =>
    manageHandler<MemberEvent>(
      routeId,
      deps,
      (request) => {
        queryOf(request.event, [])
        return handle(request, {
          issuerId: request.event.pathParameters?.issuerId ?? '',
          memberId: request.event.pathParameters?.memberId ?? '',
          members: deps.members,
        })
      },
      options,
    )

/** The signed-in person as the audit entry names them, this request's id and deadline. */
export const callerOf = (request: ManageRequest<MemberEvent>): Caller => {
  if (!request.actor) throw new Error('A member change needs the person who makes it')
  return { actor: request.actor, requestId: request.requestId, signal: request.deadline.signal }
}

export const memberLocation = (issuerId: string, memberId: string) =>
  `/manage/issuers/${encodeURIComponent(issuerId)}/members/${encodeURIComponent(memberId)}`

/** Answers about the people of an issuer, for one signed-in person: no shared cache keeps them. */
export { manageJson as memberJson } from './manage-http'
