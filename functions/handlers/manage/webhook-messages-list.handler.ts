import { runtimeFrom } from '../../composition'
import { makeListWebhookMessagesHandler } from '../../http/routes/manage/webhook-messages-list.route'
import { webhooksDeps } from '../../wiring/webhooks.deps'

/** Lambda's entry: the runtime and the route's use cases are built once, at cold start. */
export const handler = makeListWebhookMessagesHandler(webhooksDeps(runtimeFrom(process.env)))
