import { makeRecipientHoldingsLinkHandler } from '../http/routes/recipient-holdings-link.route'
import { recipientLinksDeps } from '../wiring/recipient-links.deps'
import { sendingRuntime } from './sending-runtime'

/**
 * Lambda's entry: the runtime and the OfferMail queue's sender (functions/routes.ts `sends`) are
 * built once, at cold start; a missing queue URL stops it at init.
 */
export const handler = makeRecipientHoldingsLinkHandler(
  recipientLinksDeps(sendingRuntime('RecipientHoldingsLink', process.env)),
)
