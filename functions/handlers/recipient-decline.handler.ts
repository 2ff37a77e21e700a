import { runtimeFrom } from '../composition'
import { makeRecipientDeclineHandler } from '../http/routes/recipient-decline.route'
import { recipientDeps } from '../wiring/recipient.deps'

/** Lambda's entry: the runtime and the route's use case are built once, at cold start. */
export const handler = makeRecipientDeclineHandler(recipientDeps(runtimeFrom(process.env)))
