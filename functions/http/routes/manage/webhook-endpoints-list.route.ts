import type { Runtime } from '../../../composition'
import { manageJson, queryOf } from '../../manage-http'
import { webhookRoute } from '../../webhook-routes'
import { toEndpointView } from '../../webhook-view'

/**
 * `GET /manage/issuers/{issuerId}/webhook-endpoints` (viewer) `?mode=TEST|LIVE`: the issuer's
 * webhook endpoints, oldest first, never with a secret.
 */
export const makeListWebhookEndpointsHandler = (runtime: Runtime) =>
  webhookRoute(runtime, 'ListWebhookEndpoints', async (request, endpoints, caller) => {
    const { mode } = queryOf(request.event, ['mode'])
    const list = await endpoints.list(caller, mode)
    const now = runtime.clock.now()
    return manageJson(200, { endpoints: list.map((e) => toEndpointView(e, now)) })
  })
