import { recipientIdentifyBody } from '../../domain/recipient-request.schema'
import { type RecipientRouteDeps, recipientAnswer, recipientHandler } from './recipient-route'

/**
 * `POST /recipient/identify {token, grantId, name, dateOfBirth?, country?}`: the recipient says
 * who they are; the program's rules move the grant to offered or rejected (ineligible). Only the
 * result of the age rule and the country are kept, never the date of birth.
 */
export const makeRecipientIdentifyHandler = ({ life, clock }: RecipientRouteDeps) =>
  recipientHandler(recipientIdentifyBody(clock), async (body) =>
    recipientAnswer(200, await life.identify(body)),
  )
