import { type WebhookRouteDeps, webhookRoute } from '../../webhook-routes'

/**
 * `DELETE /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}` (admin): 204, audited
 * `webhook.delete`. Its messages are delivered no more and purged with the log (30 days).
 */
export const makeDeleteWebhookEndpointHandler = (deps: WebhookRouteDeps) =>
  webhookRoute(deps, 'DeleteWebhookEndpoint', async ({ endpoints, caller, path }) => {
    await endpoints.remove(caller, path.endpointId)
    return { statusCode: 204, headers: { 'cache-control': 'no-store' } }
  })
