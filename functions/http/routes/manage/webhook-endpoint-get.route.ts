import type { Runtime } from '../../../composition'
import { manageJson } from '../../manage-http'
import { pathOf, webhookRoute } from '../../webhook-routes'

/**
 * `GET /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}` (viewer): one endpoint, never
 * its secret; a viewer sees its URL's query values masked. Another issuer's answers
 * `404 webhook_endpoint_not_found` like a missing one.
 */
export const makeGetWebhookEndpointHandler = (runtime: Runtime) =>
  webhookRoute(runtime, 'GetWebhookEndpoint', async (request, endpoints, caller, view) => {
    const endpoint = await endpoints.get(caller, pathOf(request.event).endpointId)
    return manageJson(200, view(endpoint))
  })
