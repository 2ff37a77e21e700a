import { runtimeFrom } from '../composition'
import { makeRecipientAcceptHandler } from '../http/routes/recipient-accept.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeRecipientAcceptHandler(runtimeFrom(process.env))
