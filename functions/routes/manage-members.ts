import { INDEX } from '../table-schema'
import { AUDIT, type Route, userRoute } from './route'

/**
 * An issuer's members (use cases in core/members.ts). Each reads the caller's membership first;
 * a change and its audit entry are one transaction. Why each action, Cognito's included:
 * docs/decisions/route-access.md#members.
 */

const MEMBER_PATH = '/manage/issuers/{issuerId}/members/{memberId}'
// An invitation e-mail names the issuer and the person's other pending issuers; sent by Cognito
// to a new account, by the service (`mail`) to an account with a password of its own.
const INVITATION = {
  indexes: { memberships: { [INDEX.membershipsBySub]: ['dynamodb:Query'] } },
  cognito: ['cognito-idp:AdminCreateUser', 'cognito-idp:AdminGetUser'],
  mail: true,
} as const

export const MANAGE_MEMBER_ROUTES = [
  // Its partition, strongly consistent; the pool is not asked (the status says signed in).
  userRoute('ListMembers', 'GET /manage/issuers/{issuerId}/members', 'list-members', {
    role: 'viewer',
    access: { memberships: ['dynamodb:GetItem', 'dynamodb:Query'] },
  }),
  userRoute('InviteMember', 'POST /manage/issuers/{issuerId}/members', 'invite-member', {
    role: 'owner',
    access: {
      memberships: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem'],
      issuers: ['dynamodb:GetItem'],
      audit: AUDIT,
    },
    ...INVITATION,
  }),
  // ConditionCheckItem: another owner is still one when an owner is demoted or removed.
  userRoute('ChangeMemberRole', `PATCH ${MEMBER_PATH}`, 'change-member-role', {
    role: 'owner',
    access: {
      memberships: [
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'dynamodb:ConditionCheckItem',
      ],
      audit: AUDIT,
    },
  }),
  userRoute('RemoveMember', `DELETE ${MEMBER_PATH}`, 'remove-member', {
    role: 'owner',
    access: {
      memberships: [
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:DeleteItem',
        'dynamodb:ConditionCheckItem',
      ],
      audit: AUDIT,
    },
  }),
  userRoute('ResendInvitation', `POST ${MEMBER_PATH}/resend`, 'resend-invitation', {
    role: 'owner',
    // ConditionCheckItem: still pending, in the transaction with the audit entry.
    access: {
      memberships: ['dynamodb:GetItem', 'dynamodb:ConditionCheckItem'],
      issuers: ['dynamodb:GetItem'],
      audit: AUDIT,
    },
    ...INVITATION,
  }),
] as const satisfies readonly Route[]
