import { HoldingsAcceptBody, RecipientAcceptBody } from '../../domain/recipient-request.schema'
import { type RecipientRouteDeps, recipientStep } from './recipient-route'

/**
 * `POST /recipient/accept {token, grantId, termsVersion}`: the recipient accepts the Terms of
 * this version; the time and the version are recorded. Past the offer's expiry (by the clock at
 * accept time), 409 `offer_expired`; before identifying, 409 `offer_not_identified`. From the
 * holdings page: `Authorization: Bearer <session>` and the body without `token`.
 */
export const makeRecipientAcceptHandler = ({ life, holders }: RecipientRouteDeps) =>
  recipientStep({ holders }, RecipientAcceptBody, HoldingsAcceptBody, (input) => life.accept(input))
