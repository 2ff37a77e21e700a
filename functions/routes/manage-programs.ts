import { INDEX } from '../stores/table-schema'
import type { Route } from './route'

/**
 * Who is signed in, and an issuer's programs, keys and audit log (functions/handlers/manage).
 * Each reads the caller's membership first; a change and its audit entry are one transaction.
 * Why each action: docs/decisions/route-access.md#programs-keys-and-the-audit-log.
 */
export const MANAGE_PROGRAM_ROUTES = [
  {
    // UpdateItem: the person's pending memberships become active on sign-in (core/members.ts).
    id: 'ManageMe',
    routeKey: 'GET /manage/me',
    entry: 'functions/handlers/manage/me.handler.ts',
    auth: 'user',
    role: 'signed-in',
    access: { issuers: ['dynamodb:BatchGetItem'], memberships: ['dynamodb:UpdateItem'] },
    indexes: { memberships: { [INDEX.membershipsBySub]: ['dynamodb:Query'] } },
  },
  {
    id: 'ListPrograms',
    routeKey: 'GET /manage/issuers/{issuerId}/programs',
    entry: 'functions/handlers/manage/programs-list.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: { memberships: ['dynamodb:GetItem'], programs: ['dynamodb:BatchGetItem'] },
    indexes: { programs: { [INDEX.programsByIssuer]: ['dynamodb:Query'] } },
  },
  {
    id: 'CreateProgram',
    routeKey: 'POST /manage/issuers/{issuerId}/programs',
    entry: 'functions/handlers/manage/program-create.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      issuers: ['dynamodb:ConditionCheckItem'],
      programs: ['dynamodb:PutItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    id: 'GetProgram',
    routeKey: 'GET /manage/issuers/{issuerId}/programs/{programId}',
    entry: 'functions/handlers/manage/program-get.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: {
      memberships: ['dynamodb:GetItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
    },
  },
  {
    id: 'PauseProgram',
    routeKey: 'POST /manage/issuers/{issuerId}/programs/{programId}/pause',
    entry: 'functions/handlers/manage/program-pause.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    id: 'ResumeProgram',
    routeKey: 'POST /manage/issuers/{issuerId}/programs/{programId}/resume',
    entry: 'functions/handlers/manage/program-resume.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    id: 'CloseProgram',
    routeKey: 'POST /manage/issuers/{issuerId}/programs/{programId}/close',
    entry: 'functions/handlers/manage/program-close.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    id: 'ListKeys',
    routeKey: 'GET /manage/issuers/{issuerId}/keys',
    entry: 'functions/handlers/manage/keys-list.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: { memberships: ['dynamodb:GetItem'], apiKeys: ['dynamodb:BatchGetItem'] },
    indexes: { apiKeys: { [INDEX.keysByIssuer]: ['dynamodb:Query'] } },
  },
  {
    id: 'CreateKey',
    routeKey: 'POST /manage/issuers/{issuerId}/keys',
    entry: 'functions/handlers/manage/key-create.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      issuers: ['dynamodb:ConditionCheckItem'],
      apiKeys: ['dynamodb:PutItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    id: 'RollKey',
    routeKey: 'POST /manage/issuers/{issuerId}/keys/{keyId}/roll',
    entry: 'functions/handlers/manage/key-roll.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      apiKeys: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
      audit: ['dynamodb:PutItem'],
    },
    // Only for keys made before key-id pointers existed (api-keys.dynamodb.ts findApiKeyById).
    indexes: { apiKeys: { [INDEX.keysById]: ['dynamodb:Query'] } },
  },
  {
    id: 'RevokeKey',
    routeKey: 'POST /manage/issuers/{issuerId}/keys/{keyId}/revoke',
    entry: 'functions/handlers/manage/key-revoke.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      apiKeys: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      audit: ['dynamodb:PutItem'],
    },
    indexes: { apiKeys: { [INDEX.keysById]: ['dynamodb:Query'] } },
  },
  {
    id: 'ListAudit',
    routeKey: 'GET /manage/issuers/{issuerId}/audit',
    entry: 'functions/handlers/manage/audit-list.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: { memberships: ['dynamodb:GetItem'], audit: ['dynamodb:Query'] },
  },
] as const satisfies readonly Route[]
