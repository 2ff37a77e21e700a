import { runtimeFrom } from '../../composition'
import { makeGetWebhookEndpointHandler } from '../../http/routes/manage/webhook-endpoint-get.route'
import { webhooksDeps } from '../../wiring/webhooks.deps'

/** Lambda's entry: the runtime and the route's use cases are built once, at cold start. */
export const handler = makeGetWebhookEndpointHandler(webhooksDeps(runtimeFrom(process.env)))
