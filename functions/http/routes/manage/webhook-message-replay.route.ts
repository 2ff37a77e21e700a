import type { Runtime } from '../../../composition'
import { manageJson } from '../../manage-http'
import { pathOf, webhookRoute } from '../../webhook-routes'

/**
 * `POST /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/messages/{messageId}/replay`
 * (admin): the message sent again, with the same `webhook-id` (receivers de-duplicate on it),
 * signed afresh. 202 `{ messageId }`; an unknown message `404 webhook_message_not_found`.
 * Audited `webhook.replay`.
 */
export const makeReplayWebhookMessageHandler = (runtime: Runtime) =>
  webhookRoute(runtime, 'ReplayWebhookMessage', async (request, endpoints, caller) => {
    const { endpointId, messageId } = pathOf(request.event)
    const replayed = await endpoints.replayMessage(caller, endpointId, messageId)
    return manageJson(202, { messageId: replayed })
  })
