import { manageJson } from '../../manage-http'
import { ReplaySinceBody, type WebhookRouteDeps, webhookBodyRoute } from '../../webhook-routes'

/**
 * `POST /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/replay` (admin) `{ since }`:
 * every message of the endpoint since that time sent again, in the background (the sender pages
 * through them). 202 `{ since }`: the start used, no earlier than the 30 days the log keeps.
 * Audited `webhook.replay`.
 */
export const makeReplayWebhookMessagesHandler = (deps: WebhookRouteDeps) =>
  webhookBodyRoute(
    deps,
    'ReplayWebhookMessages',
    ReplaySinceBody,
    async ({ body, endpoints, caller, path }) =>
      manageJson(202, { since: await endpoints.replaySince(caller, path.endpointId, body) }),
  )
