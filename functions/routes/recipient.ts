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
  // The holdings page (docs/decisions/holdings-sign-in.md). The sign-in link, as a new link:
  // reads nothing, only queues the address.
  functionRoute(
    'RecipientHoldingsLink',
    'POST /recipient/holdings/link',
    'recipient-holdings-link',
    {
      access: {},
      sends: ['OfferMail'],
    },
  ),
  // The attempt per token (UpdateItem), the token read, then deleted as the session is put.
  functionRoute(
    'RecipientHoldingsSession',
    'POST /recipient/holdings/session',
    'recipient-holdings-session',
    {
      access: {
        grants: [
          'dynamodb:GetItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
          'dynamodb:PutItem',
        ],
      },
    },
  ),
  functionRoute(
    'RecipientHoldingsSignOut',
    'DELETE /recipient/holdings/session',
    'recipient-holdings-sign-out',
    { access: { grants: ['dynamodb:DeleteItem'] } },
  ),
  // The session moved on (UpdateItem), the address's grants (the index, then BatchGetItem), their
  // programs' heads and terms, the issuers' names.
  functionRoute('RecipientHoldings', 'GET /recipient/holdings', 'recipient-holdings', {
    access: {
      grants: ['dynamodb:UpdateItem', 'dynamodb:BatchGetItem'],
      programs: ['dynamodb:BatchGetItem'],
      issuers: ['dynamodb:GetItem'],
    },
    indexes: BY_RECIPIENT,
  }),
] as const satisfies readonly Route[]
