import type { Runtime } from '../../composition'
import { LINKS_ANSWER, RecipientLinksBody } from '../../domain/recipient-request.schema'
import { recipientAnswer, recipientHandler, recipientLife } from './recipient-route'

/**
 * `POST /recipient/links {email}`: "send me a new link". Always 202 with the same body, whether
 * or not the address holds open offers, so it tells nobody which addresses do; only a malformed
 * address (400) or too many attempts (429) answer otherwise.
 */
export const makeRecipientLinksHandler = (runtime: Runtime) => {
  const life = recipientLife(runtime)
  return recipientHandler(RecipientLinksBody, async ({ email }) => {
    await life.requestLink({ email })
    return recipientAnswer(202, LINKS_ANSWER)
  })
}
