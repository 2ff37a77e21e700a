import { runtimeFrom } from '../composition'
import { makeRecipientHoldingsSessionHandler } from '../http/routes/recipient-holdings-session.route'
import { recipientHoldingsDeps } from '../wiring/recipient-holdings.deps'

/** Lambda's entry: the runtime and the route's use case are built once, at cold start. */
export const handler = makeRecipientHoldingsSessionHandler(
  recipientHoldingsDeps(runtimeFrom(process.env)),
)
