import { runtimeFrom } from '../composition'
import { makeRecipientHoldingsSignOutHandler } from '../http/routes/recipient-holdings-sign-out.route'
import { recipientHoldingsDeps } from '../wiring/recipient-holdings.deps'

/** Lambda's entry: the runtime and the route's use case are built once, at cold start. */
export const handler = makeRecipientHoldingsSignOutHandler(
  recipientHoldingsDeps(runtimeFrom(process.env)),
)
