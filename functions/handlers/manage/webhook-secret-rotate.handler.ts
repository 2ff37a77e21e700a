import { runtimeFrom } from '../../composition'
import { makeRotateWebhookSecretHandler } from '../../http/routes/manage/webhook-secret-rotate.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeRotateWebhookSecretHandler(runtimeFrom(process.env))
