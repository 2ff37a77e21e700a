import { INDEX } from '../table-schema'
import { functionRoute, READ_AND_UPDATE, type Route } from './route'

/**
 * The recipient's page (console/offer.html), public: the link token (or the address) in the body,
 * checked by the function (core/grant-life.ts). Each call counts an attempt first. Why each
 * action: docs/decisions/route-access.md#the-recipients-page.
 */

const BY_RECIPIENT = { grants: { [INDEX.grantsByRecipient]: ['dynamodb:Query'] } } as const
// A step that may give the shares back (identify found ineligible, decline).
const RETURNING_STEP = {
  access: { grants: READ_AND_UPDATE, programs: READ_AND_UPDATE },
  indexes: BY_RECIPIENT,
} as const

export const RECIPIENT_ROUTES = [
  functionRoute('RecipientOffer', 'POST /recipient/offer', 'recipient-offer', {
    access: { grants: READ_AND_UPDATE, programs: ['dynamodb:BatchGetItem'] },
    indexes: BY_RECIPIENT,
  }),
  functionRoute(
    'RecipientIdentify',
    'POST /recipient/identify',
    'recipient-identify',
    RETURNING_STEP,
  ),
  functionRoute('RecipientAccept', 'POST /recipient/accept', 'recipient-accept', {
    access: { grants: READ_AND_UPDATE, programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'] },
    indexes: BY_RECIPIENT,
  }),
  functionRoute('RecipientDecline', 'POST /recipient/decline', 'recipient-decline', RETURNING_STEP),
  // Reads nothing, only queues the address: the answer's timing tells nobody whether it holds
  // offers (docs/decisions/recipient-links.md).
  functionRoute('RecipientLinks', 'POST /recipient/links', 'recipient-links', {
    access: {},
    sends: ['OfferMail'],
  }),
] as const satisfies readonly Route[]
