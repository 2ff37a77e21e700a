import { runtimeFrom } from '../composition'
import { makeRecipientHoldingsHandler } from '../http/routes/recipient-holdings.route'
import { recipientHoldingsDeps } from '../wiring/recipient-holdings.deps'

/** Lambda's entry: the runtime and the route's use case are built once, at cold start. */
export const handler = makeRecipientHoldingsHandler(recipientHoldingsDeps(runtimeFrom(process.env)))
