import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import type { Runtime } from '../../../composition'
import { manageJson } from '../../manage-http'
import type { JsonEvent } from '../../middleware'
import { pathOf, ReplaySinceBody, WEBHOOK_BODY_MAX_BYTES, webhookRoute } from '../../webhook-routes'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/**
 * `POST /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/replay` (admin) `{ since }`:
 * every message of the endpoint since that time sent again, in the background (the sender pages
 * through them). 202 `{ since }`: the start used, no earlier than the 30 days the log keeps.
 * Audited `webhook.replay`.
 */
export const makeReplayWebhookMessagesHandler = (runtime: Runtime) =>
  webhookRoute<Event>(
    runtime,
    'ReplayWebhookMessages',
    async (request, endpoints, caller) => {
      const body = ReplaySinceBody.parse(request.event.body)
      const since = await endpoints.replaySince(caller, pathOf(request.event).endpointId, body)
      return manageJson(202, { since })
    },
    { jsonBodyMaxBytes: WEBHOOK_BODY_MAX_BYTES },
  )
