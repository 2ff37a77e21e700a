import { holdingsIdentifyBody, recipientIdentifyBody } from '../../domain/recipient-request.schema'
import { type RecipientRouteDeps, recipientStep } from './recipient-route'

/**
 * `POST /recipient/identify {token, grantId, name, dateOfBirth?, country?}`: the recipient says
 * who they are; the program's rules move the grant to offered or rejected (ineligible). Only the
 * result of the age rule and the country are kept, never the date of birth. From the holdings
 * page: `Authorization: Bearer <session>` and the body without `token`.
 */
export const makeRecipientIdentifyHandler = ({ life, clock, holders }: RecipientRouteDeps) =>
  recipientStep({ holders }, recipientIdentifyBody(clock), holdingsIdentifyBody(clock), (input) =>
    life.identify(input),
  )
