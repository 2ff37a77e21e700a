import type { OfferMailQueueMessage } from '../../consumers'
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
 * A public "mail me a link" route: the address (checked, normalised) is handed to the OfferMail
 * queue as `{kind, email, at}` and the answer is always `answer` (202), so it tells nobody which
 * addresses hold grants and waits on nothing they hold; the queue refusing it is a 503.
 */
export const linkRequestHandler =
  (kind: Extract<OfferMailQueueMessage, { email: string }>['kind'], answer: object) =>
  ({ offerMail, clock }: RecipientLinksRouteDeps) =>
    recipientHandler(RecipientLinksBody, async ({ email }) => {
      const message: OfferMailQueueMessage = { kind, email, at: new Date(clock()).toISOString() }
      try {
        await sendAll(offerMail, [{ id: '0', body: JSON.stringify(message) }])
      } catch (error) {
        if (error instanceof QueueRefused) throw new ServiceUnavailable({ cause: error })
        throw error
      }
      return recipientAnswer(202, answer)
    })

/**
 * `POST /recipient/links {email}`: "send me a new link". Always 202 with the same body, whether
 * or not the address holds open offers, so it tells nobody which addresses do; only a malformed
 * address (400) answers otherwise. The answer waits on nothing the address holds: the request is
 * handed to the OfferMail queue as it is, and the mailer reads the address's grants, counts its
 * limit and asks for the mail (core/grant-life.ts requestLink), after the answer is written.
 */
export const makeRecipientLinksHandler = linkRequestHandler('link-request', LINKS_ANSWER)
