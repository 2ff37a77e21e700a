import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import type { Runtime } from '../../../composition'
import { manageJson } from '../../manage-http'
import type { JsonEvent } from '../../middleware'
import {
  pathOf,
  UpdateEndpointBody,
  WEBHOOK_BODY_MAX_BYTES,
  webhookRoute,
} from '../../webhook-routes'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/**
 * `PATCH /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}` (admin)
 * `{ url?, kinds?, enabled?, description? }`: audited `webhook.update`. Enabling clears why it was
 * disabled (`disabledReason`, `disabledAt`, `failingSince`); disabling is `manual`.
 */
export const makeUpdateWebhookEndpointHandler = (runtime: Runtime) =>
  webhookRoute<Event>(
    runtime,
    'UpdateWebhookEndpoint',
    async (request, endpoints, caller, view) => {
      const body = UpdateEndpointBody.parse(request.event.body)
      const endpoint = await endpoints.update(caller, pathOf(request.event).endpointId, body)
      return manageJson(200, view(endpoint))
    },
    { jsonBodyMaxBytes: WEBHOOK_BODY_MAX_BYTES },
  )
