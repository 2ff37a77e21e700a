import type { Runtime } from '../../../composition'
import { manageJson } from '../../manage-http'
import { pathOf, webhookRoute } from '../../webhook-routes'

/**
 * `POST /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/rotate-secret` (admin): a new
 * signing secret, shown this once; the previous one keeps signing beside it for 24 hours
 * (`previousSecretExpiresAt`), so receivers can switch without missing a delivery. Audited
 * `webhook.rotate` (never with a secret).
 */
export const makeRotateWebhookSecretHandler = (runtime: Runtime) =>
  webhookRoute(runtime, 'RotateWebhookSecret', async (request, endpoints, caller, view) => {
    const { endpoint, secret } = await endpoints.rotate(caller, pathOf(request.event).endpointId)
    return manageJson(200, { ...view(endpoint), secret })
  })
