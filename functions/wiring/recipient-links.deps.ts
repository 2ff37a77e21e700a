import { queueOf, type Runtime } from '../composition'
import type { RecipientLinksRouteDeps } from '../http/routes/recipient-links.route'

/**
 * "Send me a new link": the runtime's OfferMail queue, looked up on each send, as before the
 * composition root: a runtime without queues (a test that builds every route) fails only a
 * request to this route, with queueOf's message.
 */
export const recipientLinksDeps = (runtime: Runtime): RecipientLinksRouteDeps => ({
  offerMail: { sendBatch: (entries) => queueOf(runtime, 'OfferMail').sendBatch(entries) },
  clock: () => runtime.clock.now(),
})
