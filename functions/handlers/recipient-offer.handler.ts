import { runtimeFrom } from '../composition'
import { makeRecipientOfferHandler } from '../http/routes/recipient-offer.route'
import { recipientDeps } from '../wiring/recipient.deps'

/** Lambda's entry: the runtime and the route's use case are built once, at cold start. */
export const handler = makeRecipientOfferHandler(recipientDeps(runtimeFrom(process.env)))
