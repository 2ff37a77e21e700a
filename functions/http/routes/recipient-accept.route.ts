import { RecipientAcceptBody } from '../../domain/recipient-request.schema'
import { type RecipientRouteDeps, recipientAnswer, recipientHandler } from './recipient-route'

/**
 * `POST /recipient/accept {token, grantId, termsVersion}`: the recipient accepts the Terms of
 * this version; the time and the version are recorded. Past the offer's expiry (by the clock at
 * accept time), 409 `offer_expired`; before identifying, 409 `offer_not_identified`.
 */
export const makeRecipientAcceptHandler = ({ life }: RecipientRouteDeps) =>
  recipientHandler(RecipientAcceptBody, async (body) =>
    recipientAnswer(200, await life.accept(body)),
  )
