import { HOLDINGS_LINK_ANSWER } from '../../domain/recipient-request.schema'
import { linkRequestHandler } from './recipient-links.route'

/**
 * `POST /recipient/holdings/link {email}`: "send me a sign-in link" for the holdings page. Always
 * 202 with the same body for a well-formed address (400 otherwise): like "send me a new link", it
 * reads nothing and only queues the address; the OfferMailer counts the attempt, reads the
 * address's grants and mails the links (core/holdings-mailer.ts), after the answer is written.
 */
export const makeRecipientHoldingsLinkHandler = linkRequestHandler(
  'holdings-link',
  HOLDINGS_LINK_ANSWER,
)
