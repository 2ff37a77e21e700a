import { runtimeFrom } from '../composition'
import { makeRecipientIdentifyHandler } from '../http/routes/recipient-identify.route'
import { recipientDeps } from '../wiring/recipient.deps'

/** Lambda's entry: the runtime and the route's use case are built once, at cold start. */
export const handler = makeRecipientIdentifyHandler(recipientDeps(runtimeFrom(process.env)))
