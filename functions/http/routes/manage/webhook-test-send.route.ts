import type { Runtime } from '../../../composition'
import { manageJson } from '../../manage-http'
import { pathOf, webhookRoute } from '../../webhook-routes'

/**
 * `POST /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/test` (admin): a `webhook.test`
 * message in the endpoint's log and its delivery on the Webhooks queue; the sender signs and sends
 * it as any other. 202 `{ messageId }`. Audited `webhook.test`.
 */
export const makeSendTestWebhookHandler = (runtime: Runtime) =>
  webhookRoute(runtime, 'SendTestWebhook', async (request, endpoints, caller) => {
    const messageId = await endpoints.sendTest(caller, pathOf(request.event).endpointId)
    return manageJson(202, { messageId })
  })
