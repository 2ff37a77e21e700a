import { RecipientOfferBody } from '../../domain/recipient-request.schema'
import type { RecipientHoldingsRouteDeps } from './recipient-holdings.route'
import { recipientAnswer, recipientHandler } from './recipient-route'

/**
 * `POST /recipient/holdings/session {token}`: the sign-in link's token (from its fragment) for a
 * session (201): the token is used once, in the same conditional write that makes the session.
 * Unknown, used or expired: 410 `link_expired`, one answer for all; attempts limited per token (429).
 */
export const makeRecipientHoldingsSessionHandler = ({ holdings }: RecipientHoldingsRouteDeps) =>
  recipientHandler(RecipientOfferBody, async ({ token }) =>
    recipientAnswer(201, await holdings.startSession(token)),
  )
