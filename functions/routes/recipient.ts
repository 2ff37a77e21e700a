import { INDEX } from '../stores/table-schema'
import type { Route } from './route'

/**
 * The recipient's page (console/offer.html), public: the link token (or the address) in the body,
 * checked by the function (core/grant-life.ts). Each call counts an attempt first. Why each
 * action: docs/decisions/route-access.md#the-recipients-page.
 */
export const RECIPIENT_ROUTES = [
  {
    id: 'RecipientOffer',
    routeKey: 'POST /recipient/offer',
    entry: 'functions/handlers/recipient-offer.handler.ts',
    auth: 'function',
    access: {
      grants: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
      programs: ['dynamodb:BatchGetItem'],
    },
    indexes: { grants: { [INDEX.grantsByRecipient]: ['dynamodb:Query'] } },
  },
  {
    id: 'RecipientIdentify',
    routeKey: 'POST /recipient/identify',
    entry: 'functions/handlers/recipient-identify.handler.ts',
    auth: 'function',
    access: {
      grants: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
    },
    indexes: { grants: { [INDEX.grantsByRecipient]: ['dynamodb:Query'] } },
  },
  {
    id: 'RecipientAccept',
    routeKey: 'POST /recipient/accept',
    entry: 'functions/handlers/recipient-accept.handler.ts',
    auth: 'function',
    access: {
      grants: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
    },
    indexes: { grants: { [INDEX.grantsByRecipient]: ['dynamodb:Query'] } },
  },
  {
    id: 'RecipientDecline',
    routeKey: 'POST /recipient/decline',
    entry: 'functions/handlers/recipient-decline.handler.ts',
    auth: 'function',
    access: {
      grants: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
    },
    indexes: { grants: { [INDEX.grantsByRecipient]: ['dynamodb:Query'] } },
  },
  {
    // Reads nothing, only queues the address: the answer's timing tells nobody whether it holds
    // offers (docs/decisions/recipient-links.md).
    id: 'RecipientLinks',
    routeKey: 'POST /recipient/links',
    entry: 'functions/handlers/recipient-links.handler.ts',
    auth: 'function',
    access: {},
    sends: ['OfferMail'],
  },
] as const satisfies readonly Route[]
