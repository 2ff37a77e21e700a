import { runtimeFrom } from '../../composition'
import { makeListWebhookEndpointsHandler } from '../../http/routes/manage/webhook-endpoints-list.route'
import { webhooksDeps } from '../../wiring/webhooks.deps'

/** Lambda's entry: the runtime and the route's use cases are built once, at cold start. */
export const handler = makeListWebhookEndpointsHandler(webhooksDeps(runtimeFrom(process.env)))
