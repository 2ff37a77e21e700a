import { runtimeFrom } from '../composition'
import { makeRecipientDeclineHandler } from '../http/routes/recipient-decline.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeRecipientDeclineHandler(runtimeFrom(process.env))
