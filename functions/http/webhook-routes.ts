import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda'
import * as z from 'zod/mini'
import { queueOf, type Runtime } from '../composition'
import {
  makeWebhookEndpoints,
  type WebhookCaller,
  type WebhookEndpoints,
} from '../core/webhook-endpoints'
import type { WebhookEndpointRecord } from '../domain/webhooks'
import type { RouteId } from '../routes'
import { type SecretBox, secretBoxIn } from '../runtime/secret-box'
import { DynamoDbAuditWriter } from '../stores/audit-writer.dynamodb'
import { DynamoDbMembershipReader } from '../stores/memberships.dynamodb'
import { DynamoDbWebhookStore, decodeMessageCursor } from '../stores/webhooks.dynamodb'
import { type ManageEvent, type ManageRequest, manageHandler } from './manage-handler'
import { type EndpointView, toEndpointView } from './webhook-view'

/**
 * What the webhook endpoint routes share (functions/http/routes/manage/webhook-*.route.ts): the
 * use cases (functions/core/webhook-endpoints.ts) over the webhooks table, built once per
 * function from its runtime; the secret box and the queue only on first use, so a route that
 * seals nothing needs no key and a route that sends nothing no queue.
 */

const notAnObject = (issue: { code: string }) =>
  issue.code === 'invalid_type' ? 'The body must be a JSON object' : undefined

/** The bodies' shape (an object, no unknown field); the values' rules are the use cases'. */
export const CreateEndpointBody = z.strictObject(
  {
    url: z.optional(z.unknown()),
    mode: z.optional(z.unknown()),
    kinds: z.optional(z.unknown()),
    description: z.optional(z.unknown()),
  },
  { error: notAnObject },
)
export const UpdateEndpointBody = z.strictObject(
  {
    url: z.optional(z.unknown()),
    kinds: z.optional(z.unknown()),
    enabled: z.optional(z.unknown()),
    description: z.optional(z.unknown()),
  },
  { error: notAnObject },
)
export const ReplaySinceBody = z.strictObject(
  { since: z.optional(z.unknown()) },
  { error: notAnObject },
)

/** The management routes' JSON body limit (manage-admin.ts MANAGE_BODY_MAX_BYTES), without its imports. */
export const WEBHOOK_BODY_MAX_BYTES = 16 * 1024

/** The use cases over this runtime. */
export const webhookEndpointsOf = (runtime: Runtime): WebhookEndpoints => {
  const { documentClient, config, clock } = runtime
  const store = new DynamoDbWebhookStore(documentClient, config.tables)
  const auditLog = new DynamoDbAuditWriter(documentClient, config.tables)
  let box: SecretBox | undefined
  return makeWebhookEndpoints({
    store,
    box: () => {
      // One box, so one KMS client per function (never per request), built on first use.
      box ??= secretBoxIn(config)
      return box
    },
    queue: () => queueOf(runtime, 'Webhooks'),
    audit: (entry, options) => auditLog.append(entry, options),
    clock: () => clock.now(),
    isCursor: (cursor) => decodeMessageCursor(cursor) !== undefined,
  })
}

/** The endpoint id and message id of the path (checked by the use cases: a bad one is a 404). */
export const pathOf = (event: { pathParameters?: Record<string, string | undefined> }) => ({
  endpointId: event.pathParameters?.endpointId ?? '',
  messageId: event.pathParameters?.messageId ?? '',
})

/**
 * A webhook endpoint route: the membership and role check of its route (manageHandler), then
 * `handle` with the use cases, the caller (the person, the path's issuer, the deadline) and
 * `view`, which shows an endpoint as the caller's role may see it (toEndpointView).
 */
export const webhookRoute = <E extends ManageEvent>(
  runtime: Runtime,
  routeId: RouteId,
  handle: (
    request: ManageRequest<E>,
    endpoints: WebhookEndpoints,
    caller: WebhookCaller,
    view: (endpoint: WebhookEndpointRecord) => EndpointView,
  ) => Promise<APIGatewayProxyStructuredResultV2>,
  options: { jsonBodyMaxBytes?: number } = {},
) => {
  const memberships = new DynamoDbMembershipReader(runtime.documentClient, runtime.config.tables)
  const endpoints = webhookEndpointsOf(runtime)
  return manageHandler<E>(
    routeId,
    { memberships },
    (request) => {
      const { membership, actor } = request
      if (!membership || !actor) throw new Error('A webhook route needs the member who calls it')
      return handle(
        request,
        endpoints,
        {
          issuerId: membership.issuerId,
          actor,
          requestId: request.requestId,
          signal: request.deadline.signal,
        },
        (endpoint) => toEndpointView(endpoint, runtime.clock.now(), membership.role),
      )
    },
    options,
  )
}
