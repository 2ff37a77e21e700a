import type { Runtime } from '../../composition'
import { RecipientDeclineBody } from '../../domain/recipient-request.schema'
import { recipientAnswer, recipientHandler, recipientLife } from './recipient-route'

/** `POST /recipient/decline {token, grantId}`: the recipient declines; the shares go back. */
export const makeRecipientDeclineHandler = (runtime: Runtime) => {
  const life = recipientLife(runtime)
  return recipientHandler(RecipientDeclineBody, async (body) =>
    recipientAnswer(200, await life.decline(body)),
  )
}
