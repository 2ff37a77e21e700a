import type { HoldingsLinkMessage } from '../../consumers'
import { HOLDINGS_LINK_ANSWER, RecipientLinksBody } from '../../domain/recipient-request.schema'
import { queueOfferMail, type RecipientLinksRouteDeps } from './recipient-links.route'
import { recipientAnswer, recipientHandler } from './recipient-route'

/**
 * `POST /recipient/holdings/link {email}`: "send me a sign-in link" for the holdings page. Always
 * 202 with the same body for a well-formed address (400 otherwise): like "send me a new link", it
 * reads nothing and only queues the address; the OfferMailer counts the attempt, reads the
 * address's grants and mails the links (core/holdings-mailer.ts), after the answer is written.
 */
export const makeRecipientHoldingsLinkHandler = ({ offerMail, clock }: RecipientLinksRouteDeps) =>
  recipientHandler(RecipientLinksBody, async ({ email }) => {
    const message: HoldingsLinkMessage = {
      kind: 'holdings-link',
      email,
      at: new Date(clock()).toISOString(),
    }
    await queueOfferMail(offerMail, message)
    return recipientAnswer(202, HOLDINGS_LINK_ANSWER)
  })
