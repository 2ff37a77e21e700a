import { runtimeFrom } from '../composition'
import { makeRecipientLinksHandler } from '../http/routes/recipient-links.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeRecipientLinksHandler(runtimeFrom(process.env))
