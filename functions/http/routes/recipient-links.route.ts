import type { LinkRequestMessage, OfferMailQueueMessage } from '../../consumers'
import { ServiceUnavailable } from '../../domain/errors'
import { LINKS_ANSWER, RecipientLinksBody } from '../../domain/recipient-request.schema'
import { QueueRefused, type QueueSender, sendAll } from '../../runtime/queue-sender'
import { recipientAnswer, recipientHandler } from './recipient-route'

export type RecipientLinksRouteDeps = {
  /** The OfferMail queue (functions/routes.ts `sends`), built by the composition root. */
  readonly offerMail: QueueSender
  readonly clock: () => number
}

/**
 * `POST /recipient/links {email}`: "send me a new link". Always 202 with the same body, whether
 * or not the address holds open offers, so it tells nobody which addresses do; only a malformed
 * address (400) answers otherwise. The answer waits on nothing the address holds: the request is
 * handed to the OfferMail queue as it is, and the mailer reads the address's grants, counts its
 * limit and asks for the mail (core/grant-life.ts requestLink), after the answer is written.
 */
export const makeRecipientLinksHandler = ({ offerMail, clock }: RecipientLinksRouteDeps) =>
  recipientHandler(RecipientLinksBody, async ({ email }) => {
    const message: LinkRequestMessage = {
      kind: 'link-request',
      email,
      at: new Date(clock()).toISOString(),
    }
    await queueOfferMail(offerMail, message)
    return recipientAnswer(202, LINKS_ANSWER)
  })

/** One message on the OfferMail queue; the queue refusing it is a 503 (try again). */
export const queueOfferMail = async (offerMail: QueueSender, message: OfferMailQueueMessage) => {
  try {
    await sendAll(offerMail, [{ id: '0', body: JSON.stringify(message) }])
  } catch (error) {
    if (error instanceof QueueRefused) throw new ServiceUnavailable({ cause: error })
    throw error
  }
}
