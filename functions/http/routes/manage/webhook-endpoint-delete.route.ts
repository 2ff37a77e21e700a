import type { Runtime } from '../../../composition'
import { pathOf, webhookRoute } from '../../webhook-routes'

/**
 * `DELETE /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}` (admin): 204, audited
 * `webhook.delete`. Its messages are delivered no more and purged with the log (30 days).
 */
export const makeDeleteWebhookEndpointHandler = (runtime: Runtime) =>
  webhookRoute(runtime, 'DeleteWebhookEndpoint', async (request, endpoints, caller) => {
    await endpoints.remove(caller, pathOf(request.event).endpointId)
    return { statusCode: 204, headers: { 'cache-control': 'no-store' } }
  })
