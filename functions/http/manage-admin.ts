import type { APIGatewayProxyEventV2, Context } from 'aws-lambda'
import type * as z from 'zod/mini'
import type { Admin, KeyView, ProgramView, Who } from '../core/admin'
import { KeyNotFound } from '../domain/errors'
import { DEFAULT_OFFER_DAYS } from '../domain/grant-lifecycle'
import { idPattern } from '../domain/ids'
import type { AuditEntry } from '../domain/people'
import { rateLimitOf } from '../domain/rate-limit'
import {
  type ManageAnswer,
  type ManageBodyEvent,
  type ManageDeps,
  type ManageEvent,
  type ManageRequest,
  manageHandler,
  type SignedInEvent,
} from './manage-handler'
import { type ManageLogic, type ManageRouteOptions, queryOf } from './manage-http'
import { checkProgramId } from './program-of-issuer'
import { nullWhereAbsent } from './resource-fields'
import { tokenValueFields } from './token-value'

/**
 * What the management routes share around the admin use cases (functions/core/admin.ts): one
 * admin per request (its person, its request id, its deadline), path ids checked before any
 * read, and the resources the routes answer with. What the use cases report is answered by
 * problem.ts.
 */

type Answer = ManageAnswer

/** The JSON bodies of the management routes are small: the grant API's limit. */
export const MANAGE_BODY_MAX_BYTES = 16 * 1024

/** The admin use cases of one request: its person as the actor, its deadline's signal on every call. */
export type AdminFor = (who: Required<Who>, signal: AbortSignal) => Admin

/** What an admin route needs: the membership check and the use cases (wiring/admin.deps.ts). */
export type AdminRouteDeps = ManageDeps & { readonly adminFor: AdminFor }

/**
 * A management route over the admin use cases, made over its deps: the membership and role check
 * of its route (manageHandler), then `handle` with the use cases for this request.
 */
export const adminRoute =
  <E extends ManageEvent = SignedInEvent>(
    routeId: string,
    handle: ManageLogic<E, Admin>,
    options: ManageRouteOptions = {},
  ) =>
  (deps: AdminRouteDeps) =>
    manageHandler<E>(
      routeId,
      deps,
      (request) => {
        if (!request.actor) throw new Error('A management change needs the member who makes it')
        const who = { actor: request.actor, requestId: request.requestId }
        return handle(request, deps.adminFor(who, request.deadline.signal))
      },
      options,
    )

/**
 * An admin route that takes a JSON body: read under `maxBytes`, its shape checked by `schema`
 * (manage-bodies.ts) before `handle` runs; the values' rules are the use cases'.
 */
export const adminBodyRoute = <S extends z.ZodMiniType>(
  routeId: string,
  schema: S,
  handle: (
    request: ManageRequest<ManageBodyEvent>,
    admin: Admin,
    body: z.infer<S>,
  ) => Promise<Answer>,
  maxBytes = MANAGE_BODY_MAX_BYTES,
) =>
  adminRoute<ManageBodyEvent>(
    routeId,
    (request, admin) => handle(request, admin, schema.parse(request.event.body)),
    { jsonBodyMaxBytes: maxBytes },
  )

/**
 * What a listing of the issuer's programs or keys is asked for: the member's issuer and the
 * `?mode=` filter (the only parameter they take).
 */
export const modeListingOf = (request: ManageRequest<SignedInEvent>) => {
  const { mode } = queryOf(request.event, ['mode'])
  return { issuer: request.membership?.issuerId, ...(mode === undefined ? {} : { mode }) }
}

/** A path id, checked offline: a malformed one answers exactly like an unknown one (404). */
export const programIdOf = (event: { pathParameters?: Record<string, string | undefined> }) =>
  checkProgramId(event.pathParameters?.programId)

export const keyIdOf = (event: { pathParameters?: Record<string, string | undefined> }) => {
  const id = event.pathParameters?.keyId ?? ''
  if (!idPattern('apiKey').test(id)) throw new KeyNotFound(id)
  return id
}

// Shared with the member routes, which must not bundle the admin code.
export { manageJson, queryOf } from './manage-http'

export const programPath = (issuerId: string, programId: string) =>
  `/manage/issuers/${issuerId}/programs/${programId}`

/** A program as the management API shows it (`pool` and `remaining` null: unlimited). */
export const programResource = (program: ProgramView) => ({
  id: program.programId,
  mode: program.mode,
  name: program.name,
  status: program.status,
  pool: program.pool,
  issued: program.issued,
  remaining: program.remaining,
  createdAt: program.createdAt,
  // What recipients see and must meet (functions/domain/offer-settings.ts); null: no such rule.
  // `poolLowThreshold`: `program.pool_low` fires when what is left falls to it (null: never).
  offerDays: program.offerDays ?? DEFAULT_OFFER_DAYS,
  ...nullWhereAbsent(program, ['minAge', 'countries', 'description', 'terms', 'poolLowThreshold']),
  // The value of a share now (issue 32): null while none is set.
  ...tokenValueFields(program.value),
})

/** A key as the management API shows it: never the secret or its hash, and no "last used". */
export const keyResource = (key: KeyView) => ({
  id: key.keyId,
  mode: key.mode,
  prefix: key.prefix,
  last4: key.last4,
  status: key.state,
  createdAt: key.createdAt,
  createdBy: key.createdBy ?? null,
  expiresAt: key.expiresAt === undefined ? null : new Date(key.expiresAt).toISOString(),
  // Requests a second the grant API allows the key, and whether that is its mode's default.
  rateLimit: rateLimitOf(key),
  rateLimitIsDefault: key.rateLimit === undefined,
})

/** An audit entry as the log shows it. */
export const auditResource = (entry: AuditEntry) => ({
  id: entry.entryId,
  at: entry.at,
  actor: entry.actor,
  action: entry.action,
  target: entry.target,
  requestId: entry.requestId ?? null,
  details: entry.details ?? {},
})

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<Answer>

/**
 * For a route whose body is all optional (`POST .../roll`): no body means `{}`, so
 * `curl -X POST .../roll` works; a body that is there goes through the usual JSON checks.
 */
export const emptyBodyMeansEmptyObject =
  (handler: Handler): Handler =>
  (event, context) =>
    handler(
      event.body === undefined || event.body === ''
        ? {
            ...event,
            body: '{}',
            isBase64Encoded: false,
            headers: { ...event.headers, 'content-type': 'application/json' },
          }
        : event,
      context,
    )
