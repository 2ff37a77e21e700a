import type { Route } from './route'

/**
 * A grant's life and its offer, for its issuer's people (core/grant-life.ts): another issuer's
 * grant answers as missing. Why each action: docs/decisions/route-access.md#a-grants-life.
 */
export const MANAGE_GRANT_LIFE_ROUTES = [
  {
    id: 'ManageGetGrant',
    routeKey: 'GET /manage/issuers/{issuerId}/grants/{grantId}',
    entry: 'functions/handlers/manage/grant-get.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: { memberships: ['dynamodb:GetItem'], grants: ['dynamodb:GetItem'] },
  },
  {
    // Transition, history and audit in one transaction, the shares given back to the program.
    id: 'ManageCancelGrant',
    routeKey: 'POST /manage/issuers/{issuerId}/grants/{grantId}/cancel',
    entry: 'functions/handlers/manage/grant-cancel.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      grants: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // Sets `offer.resendRequestedAt`: the stream's reader sends the offer again.
    id: 'ManageResendOffer',
    routeKey: 'POST /manage/issuers/{issuerId}/grants/{grantId}/resend',
    entry: 'functions/handlers/manage/grant-resend.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      grants: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // The stream's reader sends the offer to the new address (old link tokens cleared).
    id: 'ManageCorrectEmail',
    routeKey: 'POST /manage/issuers/{issuerId}/grants/{grantId}/correct-email',
    entry: 'functions/handlers/manage/grant-correct-email.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      grants: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // Written on the terms' version as read; the terms text is an item of its own.
    id: 'ProgramOfferSettings',
    routeKey: 'PATCH /manage/issuers/{issuerId}/programs/{programId}/offer-settings',
    entry: 'functions/handlers/manage/program-offer-settings.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      programs: [
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:UpdateItem',
        'dynamodb:PutItem',
        'dynamodb:DeleteItem',
      ],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // The issuer's TEST inbox: one partition of the inbox table, newest first.
    id: 'ListInbox',
    routeKey: 'GET /manage/issuers/{issuerId}/inbox',
    entry: 'functions/handlers/manage/inbox-list.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: { memberships: ['dynamodb:GetItem'], inbox: ['dynamodb:Query'] },
  },
  {
    // The offer e-mail a grant would send, rendered with its link as the mail will; no write.
    id: 'OfferPreview',
    routeKey: 'POST /manage/issuers/{issuerId}/programs/{programId}/offer-preview',
    entry: 'functions/handlers/manage/offer-preview.handler.ts',
    auth: 'user',
    role: 'viewer',
    recipientLinks: true,
    access: {
      memberships: ['dynamodb:GetItem'],
      programs: ['dynamodb:GetItem'],
      issuers: ['dynamodb:GetItem'],
    },
  },
] as const satisfies readonly Route[]
