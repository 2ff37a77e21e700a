import type { Runtime } from '../../composition'
import { recipientIdentifyBody } from '../../domain/recipient-request.schema'
import { recipientAnswer, recipientHandler, recipientLife } from './recipient-route'

/**
 * `POST /recipient/identify {token, grantId, name, dateOfBirth?, country?}`: the recipient says
 * who they are; the program's rules move the grant to offered or rejected (ineligible). Only the
 * result of the age rule and the country are kept, never the date of birth.
 */
export const makeRecipientIdentifyHandler = (runtime: Runtime) => {
  const life = recipientLife(runtime)
  return recipientHandler(
    recipientIdentifyBody(() => runtime.clock.now()),
    async (body) => recipientAnswer(200, await life.identify(body)),
  )
}
