import { manageJson } from '../../manage-http'
import { type WebhookRouteDeps, webhookRoute } from '../../webhook-routes'

/**
 * `GET /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}` (viewer): one endpoint, never
 * its secret; a viewer sees its URL's query values masked. Another issuer's answers
 * `404 webhook_endpoint_not_found` like a missing one.
 */
export const makeGetWebhookEndpointHandler = (deps: WebhookRouteDeps) =>
  webhookRoute(deps, 'GetWebhookEndpoint', async ({ endpoints, caller, path, view }) =>
    manageJson(200, view(await endpoints.get(caller, path.endpointId))),
  )
