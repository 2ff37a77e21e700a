import type { WebhookCaller, WebhookEndpoints } from '../core/webhook-endpoints'
import type { WebhookEndpointRecord } from '../domain/webhooks'
import type { RouteId } from '../routes'
import { bodyOfFields } from './body-shape'
import {
  type ManageAnswer,
  type ManageBodyEvent,
  type ManageDeps,
  type ManageEvent,
  type ManageRequest,
  manageHandler,
} from './manage-handler'
import { type EndpointView, toEndpointView } from './webhook-view'

/**
 * What the webhook endpoint routes share (functions/http/routes/manage/webhook-*.route.ts): the
 * membership and role check, the use cases (functions/core/webhook-endpoints.ts), the caller and
 * the view of an endpoint. What they run on is built by wiring/webhooks.deps.ts.
 */

/** What every webhook route needs: the role check's memberships, the use cases, the views' clock. */
export type WebhookRouteDeps = ManageDeps & {
  readonly endpoints: WebhookEndpoints
  /** The time (ms) an endpoint's view is shown at (whether its previous secret still signs). */
  readonly clock: () => number
}

export const CreateEndpointBody = bodyOfFields('url', 'mode', 'kinds', 'description')
export const UpdateEndpointBody = bodyOfFields('url', 'kinds', 'enabled', 'description')
export const ReplaySinceBody = bodyOfFields('since')

/** The management routes' JSON body limit (manage-admin.ts MANAGE_BODY_MAX_BYTES), without its imports. */
export const WEBHOOK_BODY_MAX_BYTES = 16 * 1024

/** What a webhook route's logic receives once the member who calls it is known and allowed. */
export type WebhookContext<E> = {
  request: ManageRequest<E>
  endpoints: WebhookEndpoints
  /** The person, the path's issuer, the deadline. */
  caller: WebhookCaller
  /** The endpoint id and message id of the path (checked by the use cases: a bad one is a 404). */
  path: { endpointId: string; messageId: string }
  /** An endpoint as the caller's role may see it (toEndpointView). */
  view: (endpoint: WebhookEndpointRecord) => EndpointView
}

type Answer = Promise<ManageAnswer>

/** A webhook endpoint route: the membership and role check of its route (manageHandler), then `handle`. */
export const webhookRoute = <E extends ManageEvent>(
  deps: WebhookRouteDeps,
  routeId: RouteId,
  handle: (context: WebhookContext<E>) => Answer,
  options: { jsonBodyMaxBytes?: number } = {},
) =>
  manageHandler<E>(
    routeId,
    deps,
    (request) => {
      const { membership, actor, event } = request
      if (!membership || !actor) throw new Error('A webhook route needs the member who calls it')
      return handle({
        request,
        endpoints: deps.endpoints,
        caller: {
          issuerId: membership.issuerId,
          actor,
          requestId: request.requestId,
          signal: request.deadline.signal,
        },
        path: {
          endpointId: event.pathParameters?.endpointId ?? '',
          messageId: event.pathParameters?.messageId ?? '',
        },
        view: (endpoint) => toEndpointView(endpoint, deps.clock(), membership.role),
      })
    },
    options,
  )

/**
 * A webhook route with a JSON body: at most WEBHOOK_BODY_MAX_BYTES, its shape checked by `body`
 * (a 400 naming the field) before `handle` sees it.
 */
export const webhookBodyRoute = <B>(
  deps: WebhookRouteDeps,
  routeId: RouteId,
  body: { parse: (value: unknown) => B },
  handle: (context: WebhookContext<ManageBodyEvent> & { body: B }) => Answer,
) =>
  webhookRoute<ManageBodyEvent>(
    deps,
    routeId,
    (context) => handle({ ...context, body: body.parse(context.request.event.body) }),
    { jsonBodyMaxBytes: WEBHOOK_BODY_MAX_BYTES },
  )
