import { manageJson } from '../../manage-http'
import { type WebhookRouteDeps, webhookRoute } from '../../webhook-routes'

/**
 * `POST /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/messages/{messageId}/replay`
 * (admin): the message sent again, with the same `webhook-id` (receivers de-duplicate on it),
 * signed afresh. 202 `{ messageId }`; an unknown message `404 webhook_message_not_found`.
 * Audited `webhook.replay`.
 */
export const makeReplayWebhookMessageHandler = (deps: WebhookRouteDeps) =>
  webhookRoute(deps, 'ReplayWebhookMessage', async ({ endpoints, caller, path }) => {
    const replayed = await endpoints.replayMessage(caller, path.endpointId, path.messageId)
    return manageJson(202, { messageId: replayed })
  })
