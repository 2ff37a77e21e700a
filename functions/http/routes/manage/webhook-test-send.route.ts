import { manageJson } from '../../manage-http'
import { type WebhookRouteDeps, webhookRoute } from '../../webhook-routes'

/**
 * `POST /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/test` (admin): a `webhook.test`
 * message in the endpoint's log and its delivery on the Webhooks queue; the sender signs and sends
 * it as any other. 202 `{ messageId }`. Audited `webhook.test`.
 */
export const makeSendTestWebhookHandler = (deps: WebhookRouteDeps) =>
  webhookRoute(deps, 'SendTestWebhook', async ({ endpoints, caller, path }) =>
    manageJson(202, { messageId: await endpoints.sendTest(caller, path.endpointId) }),
  )
