import { INDEX } from '../table-schema'
import { AUDIT, creation, MEMBER, READ_AND_UPDATE, type Route, userRoute } from './route'

/**
 * Who is signed in, and an issuer's programs, keys and audit log (functions/handlers/manage).
 * Each reads the caller's membership first; a change and its audit entry are one transaction.
 * Why each action: docs/decisions/route-access.md#programs-keys-and-the-audit-log.
 */

const PROGRAM_PATH = '/manage/issuers/{issuerId}/programs/{programId}'
const PROGRAM = `POST ${PROGRAM_PATH}`
// Pause, resume, close: the program's head read and written on the state it was read in.
const PROGRAM_STATE = {
  role: 'admin',
  access: { memberships: MEMBER, programs: READ_AND_UPDATE, audit: AUDIT },
} as const

// Revoke, a rate limit: the key found by id (pointer, then key; the index for an older key) and
// updated on the state it was read in.
const KEY_GET_AND_UPDATE = ['dynamodb:GetItem', 'dynamodb:UpdateItem'] as const
const KEY_CHANGE = {
  role: 'admin',
  access: { memberships: MEMBER, apiKeys: KEY_GET_AND_UPDATE, audit: AUDIT },
  indexes: { apiKeys: { [INDEX.keysById]: ['dynamodb:Query'] } },
} as const

export const MANAGE_PROGRAM_ROUTES = [
  // UpdateItem: the person's pending memberships become active on sign-in (core/members.ts).
  userRoute('ManageMe', 'GET /manage/me', 'me', {
    role: 'signed-in',
    access: { issuers: ['dynamodb:BatchGetItem'], memberships: ['dynamodb:UpdateItem'] },
    indexes: { memberships: { [INDEX.membershipsBySub]: ['dynamodb:Query'] } },
  }),
  userRoute('ListPrograms', 'GET /manage/issuers/{issuerId}/programs', 'programs-list', {
    role: 'viewer',
    access: { memberships: MEMBER, programs: ['dynamodb:BatchGetItem'] },
    indexes: { programs: { [INDEX.programsByIssuer]: ['dynamodb:Query'] } },
  }),
  userRoute(
    'CreateProgram',
    'POST /manage/issuers/{issuerId}/programs',
    'program-create',
    creation('programs'),
  ),
  userRoute('GetProgram', 'GET /manage/issuers/{issuerId}/programs/{programId}', 'program-get', {
    role: 'viewer',
    access: { memberships: MEMBER, programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'] },
  }),
  userRoute('PauseProgram', `${PROGRAM}/pause`, 'program-pause', PROGRAM_STATE),
  userRoute('ResumeProgram', `${PROGRAM}/resume`, 'program-resume', PROGRAM_STATE),
  userRoute('CloseProgram', `${PROGRAM}/close`, 'program-close', PROGRAM_STATE),
  userRoute('ListKeys', 'GET /manage/issuers/{issuerId}/keys', 'keys-list', {
    role: 'viewer',
    access: { memberships: MEMBER, apiKeys: ['dynamodb:BatchGetItem'] },
    indexes: { apiKeys: { [INDEX.keysByIssuer]: ['dynamodb:Query'] } },
  }),
  userRoute('CreateKey', 'POST /manage/issuers/{issuerId}/keys', 'key-create', creation('apiKeys')),
  userRoute('RollKey', 'POST /manage/issuers/{issuerId}/keys/{keyId}/roll', 'key-roll', {
    role: 'admin',
    access: {
      memberships: MEMBER,
      apiKeys: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
      audit: AUDIT,
    },
    // Only for keys made before key-id pointers existed (api-keys.dynamodb.ts findApiKeyById).
    indexes: { apiKeys: { [INDEX.keysById]: ['dynamodb:Query'] } },
  }),
  userRoute(
    'RevokeKey',
    'POST /manage/issuers/{issuerId}/keys/{keyId}/revoke',
    'key-revoke',
    KEY_CHANGE,
  ),
  // A key's rate limit (issue 33).
  userRoute('UpdateKey', 'PATCH /manage/issuers/{issuerId}/keys/{keyId}', 'key-update', KEY_CHANGE),
  userRoute('ListAudit', 'GET /manage/issuers/{issuerId}/audit', 'audit-list', {
    role: 'viewer',
    access: { memberships: MEMBER, audit: ['dynamodb:Query'] },
  }),
  // A program's figures (issue 32), kept by the grants stream: the program (its head and, for a
  // sharded one, its shards' counters), then its holders from byAccepted or its days' items.
  userRoute('ListProgramHolders', `GET ${PROGRAM_PATH}/holders`, 'program-holders', {
    role: 'viewer',
    access: { memberships: MEMBER, programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'] },
    indexes: { figures: { [INDEX.holdersByAccepted]: ['dynamodb:Query'] } },
  }),
  userRoute('GetProgramDaily', `GET ${PROGRAM_PATH}/daily`, 'program-daily', {
    role: 'viewer',
    access: {
      memberships: MEMBER,
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
      figures: ['dynamodb:Query'],
    },
  }),
  // A program's value (issue 32): the head's current value, the history in the figures table, and
  // the outbox item of program.value_changed in the grants table (its stream), in one transaction;
  // a backdated entry only condition-checks the head.
  userRoute('SetProgramValue', `${PROGRAM}/values`, 'program-value-set', {
    role: 'admin',
    access: {
      memberships: MEMBER,
      programs: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem'],
      figures: ['dynamodb:PutItem'],
      grants: ['dynamodb:PutItem'],
      audit: AUDIT,
    },
  }),
  userRoute('ListProgramValues', `GET ${PROGRAM_PATH}/values`, 'program-values-list', {
    role: 'viewer',
    access: { memberships: MEMBER, programs: ['dynamodb:GetItem'], figures: ['dynamodb:Query'] },
  }),
] as const satisfies readonly Route[]
