import { runtimeFrom } from '../../composition'
import { makeRotateWebhookSecretHandler } from '../../http/routes/manage/webhook-secret-rotate.route'
import { webhooksDeps } from '../../wiring/webhooks.deps'

/** Lambda's entry: the runtime and the route's use cases are built once, at cold start. */
export const handler = makeRotateWebhookSecretHandler(webhooksDeps(runtimeFrom(process.env)))
