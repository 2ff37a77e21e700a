import { runtimeFrom } from '../../composition'
import { makeDeleteWebhookEndpointHandler } from '../../http/routes/manage/webhook-endpoint-delete.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeDeleteWebhookEndpointHandler(runtimeFrom(process.env))
