import { runtimeFrom } from '../../composition'
import { makeGetWebhookEndpointHandler } from '../../http/routes/manage/webhook-endpoint-get.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeGetWebhookEndpointHandler(runtimeFrom(process.env))
