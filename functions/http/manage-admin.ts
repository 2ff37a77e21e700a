import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda'
import type { Runtime } from '../composition'
import { type KeyView, makeAdmin, type ProgramView } from '../core/admin'
import { KeyNotFound } from '../domain/errors'
import { DEFAULT_OFFER_DAYS } from '../domain/grant-lifecycle'
import { idPattern } from '../domain/ids'
import type { AuditEntry } from '../domain/people'
import type { Clock } from '../runtime/clock'
import { DynamoDbAdminStore, REQUEST_CONFLICT_RETRY } from '../stores/admin.dynamodb'
import { DynamoDbMembershipReader } from '../stores/memberships.dynamodb'
import { type ManageEvent, type ManageRequest, manageHandler } from './manage-handler'
import { checkProgramId } from './program-of-issuer'

/**
 * What the management routes share around the admin use cases (functions/core/admin.ts): one
 * admin per request (its person, its request id, its deadline), path ids checked before any
 * read, and the resources the routes answer with. What the use cases report is answered by
 * problem.ts.
 */

/** Store options for a request: few conflict retries, so the deadline is never reached by them. */
export const MANAGE_STORE_OPTIONS = { conflictRetry: REQUEST_CONFLICT_RETRY } as const

/** The JSON bodies of the management routes are small: the grant API's limit. */
export const MANAGE_BODY_MAX_BYTES = 16 * 1024

/** The use cases for this request: its person as the actor, its deadline on every call. */
export const adminFor = (
  store: DynamoDbAdminStore,
  request: ManageRequest<unknown>,
  clock: Clock,
) => {
  if (!request.actor) throw new Error('A management change needs the member who makes it')
  return makeAdmin(store.withSignal(request.deadline.signal), () => clock.now(), {
    actor: request.actor,
    requestId: request.requestId,
  })
}

/**
 * A management route over the admin use cases: the membership and role check of its route
 * (manageHandler), then `handle` with the use cases for this request (adminFor).
 */
export const adminRoute = <E extends ManageEvent = APIGatewayProxyEventV2WithJWTAuthorizer>(
  { documentClient, config, clock }: Runtime,
  routeId: string,
  handle: (
    request: ManageRequest<E>,
    admin: ReturnType<typeof adminFor>,
  ) => Promise<APIGatewayProxyStructuredResultV2>,
  options: { jsonBodyMaxBytes?: number } = {},
) => {
  const memberships = new DynamoDbMembershipReader(documentClient, config.tables)
  const store = new DynamoDbAdminStore(documentClient, config.tables, MANAGE_STORE_OPTIONS)
  return manageHandler<E>(
    routeId,
    { memberships },
    (request) => handle(request, adminFor(store, request, clock)),
    options,
  )
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
  offerDays: program.offerDays ?? DEFAULT_OFFER_DAYS,
  minAge: program.minAge ?? null,
  countries: program.countries ?? null,
  description: program.description ?? null,
  terms: program.terms ?? null,
  // `program.pool_low` fires when what is left falls to this (null: never).
  poolLowThreshold: program.poolLowThreshold ?? null,
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

type Handler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>

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
