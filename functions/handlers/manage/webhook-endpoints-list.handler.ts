import { runtimeFrom } from '../../composition'
import { makeListWebhookEndpointsHandler } from '../../http/routes/manage/webhook-endpoints-list.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeListWebhookEndpointsHandler(runtimeFrom(process.env))
