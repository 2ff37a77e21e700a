import { runtimeFrom } from '../composition'
import { makeRecipientIdentifyHandler } from '../http/routes/recipient-identify.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeRecipientIdentifyHandler(runtimeFrom(process.env))
