import { manageJson } from '../../manage-http'
import { type WebhookRouteDeps, webhookRoute } from '../../webhook-routes'

/**
 * `POST /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/rotate-secret` (admin): a new
 * signing secret, shown this once; the previous one keeps signing beside it for 24 hours
 * (`previousSecretExpiresAt`), so receivers can switch without missing a delivery. Audited
 * `webhook.rotate` (never with a secret).
 */
export const makeRotateWebhookSecretHandler = (deps: WebhookRouteDeps) =>
  webhookRoute(deps, 'RotateWebhookSecret', async ({ endpoints, caller, path, view }) => {
    const { endpoint, secret } = await endpoints.rotate(caller, path.endpointId)
    return manageJson(200, { ...view(endpoint), secret })
  })
