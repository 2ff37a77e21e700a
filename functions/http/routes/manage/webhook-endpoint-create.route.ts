import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import type { Runtime } from '../../../composition'
import { manageJson } from '../../manage-http'
import type { JsonEvent } from '../../middleware'
import { CreateEndpointBody, WEBHOOK_BODY_MAX_BYTES, webhookRoute } from '../../webhook-routes'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/**
 * `POST /manage/issuers/{issuerId}/webhook-endpoints` (admin) `{ url, mode, kinds, description? }`:
 * a new endpoint with its audit entry (`webhook.create`). 201 with its signing secret: the only
 * time it is shown (it is stored sealed), so the answer is `Cache-Control: no-store`. A bad field
 * is `400 validation_failed` naming it; the mode's endpoints all taken, `409 webhook_endpoint_limit`.
 */
export const makeCreateWebhookEndpointHandler = (runtime: Runtime) =>
  webhookRoute<Event>(
    runtime,
    'CreateWebhookEndpoint',
    async (request, endpoints, caller, view) => {
      const body = CreateEndpointBody.parse(request.event.body)
      const { endpoint, secret } = await endpoints.create(caller, body)
      return manageJson(201, { ...view(endpoint), secret })
    },
    { jsonBodyMaxBytes: WEBHOOK_BODY_MAX_BYTES },
  )
