import { runtimeFrom } from '../../composition'
import { makeCreateWebhookEndpointHandler } from '../../http/routes/manage/webhook-endpoint-create.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeCreateWebhookEndpointHandler(runtimeFrom(process.env))
