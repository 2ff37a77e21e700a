import { runtimeFrom } from '../../composition'
import { makeUpdateWebhookEndpointHandler } from '../../http/routes/manage/webhook-endpoint-update.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeUpdateWebhookEndpointHandler(runtimeFrom(process.env))
