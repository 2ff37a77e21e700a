import { INDEX } from '../stores/table-schema'
import type { Route } from './route'

/**
 * An issuer's members (use cases in core/members.ts). Each reads the caller's membership first;
 * a change and its audit entry are one transaction. Why each action, Cognito's included:
 * docs/decisions/route-access.md#members.
 */
export const MANAGE_MEMBER_ROUTES = [
  {
    // Its partition, strongly consistent; the pool is not asked (the status says signed in).
    id: 'ListMembers',
    routeKey: 'GET /manage/issuers/{issuerId}/members',
    entry: 'functions/handlers/manage/list-members.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: {
      memberships: ['dynamodb:GetItem', 'dynamodb:Query'],
    },
  },
  {
    id: 'InviteMember',
    routeKey: 'POST /manage/issuers/{issuerId}/members',
    entry: 'functions/handlers/manage/invite-member.handler.ts',
    auth: 'user',
    role: 'owner',
    access: {
      memberships: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem'],
      // The issuer's name, and the other pending issuers', for the invitation e-mail.
      issuers: ['dynamodb:GetItem'],
      audit: ['dynamodb:PutItem'],
    },
    indexes: { memberships: { [INDEX.membershipsBySub]: ['dynamodb:Query'] } },
    cognito: ['cognito-idp:AdminCreateUser', 'cognito-idp:AdminGetUser'],
    // The "you were added" e-mail to an account with a password of its own.
    mail: true,
  },
  {
    id: 'ChangeMemberRole',
    routeKey: 'PATCH /manage/issuers/{issuerId}/members/{memberId}',
    entry: 'functions/handlers/manage/change-member-role.handler.ts',
    auth: 'user',
    role: 'owner',
    access: {
      // ConditionCheckItem: another owner is still one when an owner is demoted.
      memberships: [
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'dynamodb:ConditionCheckItem',
      ],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    id: 'RemoveMember',
    routeKey: 'DELETE /manage/issuers/{issuerId}/members/{memberId}',
    entry: 'functions/handlers/manage/remove-member.handler.ts',
    auth: 'user',
    role: 'owner',
    access: {
      // As ChangeMemberRole, with DeleteItem instead of UpdateItem.
      memberships: [
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:DeleteItem',
        'dynamodb:ConditionCheckItem',
      ],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    id: 'ResendInvitation',
    routeKey: 'POST /manage/issuers/{issuerId}/members/{memberId}/resend',
    entry: 'functions/handlers/manage/resend-invitation.handler.ts',
    auth: 'user',
    role: 'owner',
    access: {
      // ConditionCheckItem: still pending, in the transaction with the audit entry.
      memberships: ['dynamodb:GetItem', 'dynamodb:ConditionCheckItem'],
      issuers: ['dynamodb:GetItem'],
      audit: ['dynamodb:PutItem'],
    },
    indexes: { memberships: { [INDEX.membershipsBySub]: ['dynamodb:Query'] } },
    cognito: ['cognito-idp:AdminCreateUser', 'cognito-idp:AdminGetUser'],
    mail: true,
  },
] as const satisfies readonly Route[]
