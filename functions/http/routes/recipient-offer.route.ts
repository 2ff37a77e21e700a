import { RecipientOfferBody } from '../../domain/recipient-request.schema'
import { type RecipientRouteDeps, recipientAnswer, recipientHandler } from './recipient-route'

/**
 * `POST /recipient/offer {token}`: what the link offers (the grants of this address by this
 * issuer), changing nothing: mail scanners open links before people do. POST keeps the token out
 * of URLs and logs. An unknown, used or expired token: 404 `offer_link_invalid`, the same for all.
 */
export const makeRecipientOfferHandler = ({ life }: RecipientRouteDeps) =>
  recipientHandler(RecipientOfferBody, async ({ token }) =>
    recipientAnswer(200, await life.view({ token })),
  )
