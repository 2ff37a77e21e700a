import { runtimeFrom } from '../../composition'
import { makeDeleteWebhookEndpointHandler } from '../../http/routes/manage/webhook-endpoint-delete.route'
import { webhooksDeps } from '../../wiring/webhooks.deps'

/** Lambda's entry: the runtime and the route's use cases are built once, at cold start. */
export const handler = makeDeleteWebhookEndpointHandler(webhooksDeps(runtimeFrom(process.env)))
