import { AUDIT, MEMBER, READ_AND_UPDATE, type Route, userRoute } from './route'

/**
 * A grant's life and its offer, for its issuer's people (core/grant-life.ts): another issuer's
 * grant answers as missing. Why each action: docs/decisions/route-access.md#a-grants-life.
 */

const GRANT = '/manage/issuers/{issuerId}/grants/{grantId}'
const PROGRAM = '/manage/issuers/{issuerId}/programs/{programId}'
// The grant changed with its audit entry; the stream's reader sends the offer (again).
const OFFER_CHANGE = {
  role: 'admin',
  access: {
    memberships: MEMBER,
    grants: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
    audit: AUDIT,
  },
} as const

export const MANAGE_GRANT_LIFE_ROUTES = [
  userRoute('ManageGetGrant', `GET ${GRANT}`, 'grant-get', {
    role: 'viewer',
    access: { memberships: MEMBER, grants: ['dynamodb:GetItem'] },
  }),
  // Transition, history and audit in one transaction, the shares given back to the program.
  userRoute('ManageCancelGrant', `POST ${GRANT}/cancel`, 'grant-cancel', {
    role: 'admin',
    access: {
      memberships: MEMBER,
      grants: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      programs: READ_AND_UPDATE,
      audit: AUDIT,
    },
  }),
  // Sets `offer.resendRequestedAt`.
  userRoute('ManageResendOffer', `POST ${GRANT}/resend`, 'grant-resend', OFFER_CHANGE),
  // The new address, its old link tokens cleared.
  userRoute(
    'ManageCorrectEmail',
    `POST ${GRANT}/correct-email`,
    'grant-correct-email',
    OFFER_CHANGE,
  ),
  // Written on the terms' version as read; the terms text is an item of its own.
  userRoute('ProgramOfferSettings', `PATCH ${PROGRAM}/offer-settings`, 'program-offer-settings', {
    role: 'admin',
    access: {
      memberships: MEMBER,
      programs: [
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:UpdateItem',
        'dynamodb:PutItem',
        'dynamodb:DeleteItem',
      ],
      audit: AUDIT,
    },
  }),
  // The issuer's TEST inbox: one partition of the inbox table, newest first.
  userRoute('ListInbox', 'GET /manage/issuers/{issuerId}/inbox', 'inbox-list', {
    role: 'viewer',
    access: { memberships: MEMBER, inbox: ['dynamodb:Query'] },
  }),
  // The offer e-mail a grant would send, rendered with its link as the mail will; no write.
  userRoute('OfferPreview', `POST ${PROGRAM}/offer-preview`, 'offer-preview', {
    role: 'viewer',
    recipientLinks: true,
    access: {
      memberships: MEMBER,
      programs: ['dynamodb:GetItem'],
      issuers: ['dynamodb:GetItem'],
    },
  }),
] as const satisfies readonly Route[]
