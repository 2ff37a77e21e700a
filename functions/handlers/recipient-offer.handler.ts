import { runtimeFrom } from '../composition'
import { makeRecipientOfferHandler } from '../http/routes/recipient-offer.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeRecipientOfferHandler(runtimeFrom(process.env))
