import { runtimeFrom } from '../../composition'
import { makeCreateWebhookEndpointHandler } from '../../http/routes/manage/webhook-endpoint-create.route'
import { webhooksDeps } from '../../wiring/webhooks.deps'

/** Lambda's entry: the runtime and the route's use cases are built once, at cold start. */
export const handler = makeCreateWebhookEndpointHandler(webhooksDeps(runtimeFrom(process.env)))
