import { runtimeFrom } from '../../composition'
import { makeUpdateWebhookEndpointHandler } from '../../http/routes/manage/webhook-endpoint-update.route'
import { webhooksDeps } from '../../wiring/webhooks.deps'

/** Lambda's entry: the runtime and the route's use cases are built once, at cold start. */
export const handler = makeUpdateWebhookEndpointHandler(webhooksDeps(runtimeFrom(process.env)))
