import { runtimeFrom } from '../composition'
import { makeRecipientAcceptHandler } from '../http/routes/recipient-accept.route'
import { recipientDeps } from '../wiring/recipient.deps'

/** Lambda's entry: the runtime and the route's use case are built once, at cold start. */
export const handler = makeRecipientAcceptHandler(recipientDeps(runtimeFrom(process.env)))
