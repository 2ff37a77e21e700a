import type { Runtime } from '../../../composition'
import { manageJson } from '../../manage-http'
import { pathOf, webhookRoute } from '../../webhook-routes'
import { toEndpointView } from '../../webhook-view'

/**
 * `GET /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}` (viewer): one endpoint, never
 * its secret. Another issuer's answers `404 webhook_endpoint_not_found` like a missing one.
 */
export const makeGetWebhookEndpointHandler = (runtime: Runtime) =>
  webhookRoute(runtime, 'GetWebhookEndpoint', async (request, endpoints, caller) => {
    const endpoint = await endpoints.get(caller, pathOf(request.event).endpointId)
    return manageJson(200, toEndpointView(endpoint, runtime.clock.now()))
  })
