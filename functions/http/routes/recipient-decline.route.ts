import { RecipientDeclineBody } from '../../domain/recipient-request.schema'
import { type RecipientRouteDeps, recipientAnswer, recipientHandler } from './recipient-route'

/** `POST /recipient/decline {token, grantId}`: the recipient declines; the shares go back. */
export const makeRecipientDeclineHandler = ({ life }: RecipientRouteDeps) =>
  recipientHandler(RecipientDeclineBody, async (body) =>
    recipientAnswer(200, await life.decline(body)),
  )
