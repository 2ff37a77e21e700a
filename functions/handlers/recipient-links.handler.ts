import { makeRecipientLinksHandler } from '../http/routes/recipient-links.route'
import { recipientLinksDeps } from '../wiring/recipient-links.deps'
import { sendingRuntime } from './sending-runtime'

/**
 * Lambda's entry: the runtime and the OfferMail queue's sender (functions/routes.ts `sends`) are
 * built once, at cold start; a missing queue URL stops it at init.
 */
export const handler = makeRecipientLinksHandler(
  recipientLinksDeps(sendingRuntime('RecipientLinks', process.env)),
)
