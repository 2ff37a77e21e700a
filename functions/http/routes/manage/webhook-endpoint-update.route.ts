import { manageJson } from '../../manage-http'
import { UpdateEndpointBody, type WebhookRouteDeps, webhookBodyRoute } from '../../webhook-routes'

/**
 * `PATCH /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}` (admin)
 * `{ url?, kinds?, enabled?, description? }`: audited `webhook.update`. Enabling clears why it was
 * disabled (`disabledReason`, `disabledAt`, `failingSince`); disabling is `manual`.
 */
export const makeUpdateWebhookEndpointHandler = (deps: WebhookRouteDeps) =>
  webhookBodyRoute(
    deps,
    'UpdateWebhookEndpoint',
    UpdateEndpointBody,
    async ({ body, endpoints, caller, path, view }) =>
      manageJson(200, view(await endpoints.update(caller, path.endpointId, body))),
  )
