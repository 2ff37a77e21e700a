import type { Runtime } from '../../composition'
import { RecipientAcceptBody } from '../../domain/recipient-request.schema'
import { recipientAnswer, recipientHandler, recipientLife } from './recipient-route'

/**
 * `POST /recipient/accept {token, grantId, termsVersion}`: the recipient accepts the Terms of
 * this version; the time and the version are recorded. Past the offer's expiry (by the clock at
 * accept time), 409 `offer_expired`; before identifying, 409 `offer_not_identified`.
 */
export const makeRecipientAcceptHandler = (runtime: Runtime) => {
  const life = recipientLife(runtime)
  return recipientHandler(RecipientAcceptBody, async (body) =>
    recipientAnswer(200, await life.accept(body)),
  )
}
