import { runtimeFrom } from '../../composition'
import { makeListWebhookMessagesHandler } from '../../http/routes/manage/webhook-messages-list.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeListWebhookMessagesHandler(runtimeFrom(process.env))
