import { manageJson } from '../../manage-http'
import { CreateEndpointBody, type WebhookRouteDeps, webhookBodyRoute } from '../../webhook-routes'

/**
 * `POST /manage/issuers/{issuerId}/webhook-endpoints` (admin) `{ url, mode, kinds, description? }`:
 * a new endpoint with its audit entry (`webhook.create`). 201 with its signing secret: the only
 * time it is shown (it is stored sealed), so the answer is `Cache-Control: no-store`. A bad field
 * is `400 validation_failed` naming it; the mode's endpoints all taken, `409 webhook_endpoint_limit`.
 */
export const makeCreateWebhookEndpointHandler = (deps: WebhookRouteDeps) =>
  webhookBodyRoute(
    deps,
    'CreateWebhookEndpoint',
    CreateEndpointBody,
    async ({ body, endpoints, caller, view }) => {
      const { endpoint, secret } = await endpoints.create(caller, body)
      return manageJson(201, { ...view(endpoint), secret })
    },
  )
