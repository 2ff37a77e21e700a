import { manageJson, queryOf } from '../../manage-http'
import { type WebhookRouteDeps, webhookRoute } from '../../webhook-routes'

/**
 * `GET /manage/issuers/{issuerId}/webhook-endpoints` (viewer) `?mode=TEST|LIVE`: the issuer's
 * webhook endpoints, oldest first, never with a secret; a viewer sees their URLs' query values
 * masked.
 */
export const makeListWebhookEndpointsHandler = (deps: WebhookRouteDeps) =>
  webhookRoute(deps, 'ListWebhookEndpoints', async ({ request, endpoints, caller, view }) => {
    const { mode } = queryOf(request.event, ['mode'])
    const list = await endpoints.list(caller, mode)
    return manageJson(200, { endpoints: list.map(view) })
  })
