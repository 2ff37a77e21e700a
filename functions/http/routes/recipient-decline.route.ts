import { HoldingsDeclineBody, RecipientDeclineBody } from '../../domain/recipient-request.schema'
import { type RecipientRouteDeps, recipientStep } from './recipient-route'

/**
 * `POST /recipient/decline {token, grantId}`: the recipient declines; the shares go back. From the
 * holdings page: `Authorization: Bearer <session>` and `{grantId}`.
 */
export const makeRecipientDeclineHandler = ({ life, holders }: RecipientRouteDeps) =>
  recipientStep({ holders }, RecipientDeclineBody, HoldingsDeclineBody, (input) =>
    life.decline(input),
  )
