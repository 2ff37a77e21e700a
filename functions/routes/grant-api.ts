import { INDEX } from '../table-schema'
import { functionRoute, type Route } from './route'

/**
 * The integrators' routes (`x-api-key`, checked by the function). Why each DynamoDB action:
 * docs/decisions/route-access.md#the-grant-api. Each limits its key's rate (`rateBuckets`:
 * UpdateItem on the apiKeys table's `rate#` items only; docs/decisions/rate-limits.md).
 */

// Key and program in one BatchGetItem, read fresh; the key alone (GetItem) for its rate limit,
// at most once a second (core/access-cache.ts).
const KEY_AND_PROGRAM = {
  apiKeys: ['dynamodb:BatchGetItem', 'dynamodb:GetItem'],
  programs: ['dynamodb:BatchGetItem'],
} as const

// The grant written on the state it was read in; an unaccepted end gives its shares back.
const GRANT_CHANGE = {
  apiKeys: ['dynamodb:BatchGetItem', 'dynamodb:GetItem'],
  programs: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
  grants: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
} as const

export const GRANT_API_ROUTES = [
  // Key and program head at most once a second (core/access-cache.ts); shard UpdateItem and
  // grant PutItem in one transaction; BatchGetItem reads the shards, GetItem a replay.
  functionRoute('GrantTokens', 'POST /programs/{programId}/grant-tokens', 'grant-tokens', {
    access: {
      apiKeys: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
      programs: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:BatchGetItem'],
      grants: ['dynamodb:PutItem', 'dynamodb:GetItem'],
    },
    rateBuckets: true,
  }),
  functionRoute('GetGrant', 'GET /programs/{programId}/grants/{grantId}', 'get-grant', {
    access: {
      apiKeys: ['dynamodb:BatchGetItem', 'dynamodb:GetItem'],
      grants: ['dynamodb:BatchGetItem'],
    },
    rateBuckets: true,
  }),
  functionRoute('GetProgramByKey', 'GET /programs/{programId}', 'get-program', {
    access: KEY_AND_PROGRAM,
    rateBuckets: true,
  }),
  functionRoute('ListGrantsByKey', 'GET /programs/{programId}/grants', 'list-grants', {
    listsGrants: true,
    access: KEY_AND_PROGRAM,
    rateBuckets: true,
    indexes: { grants: { [INDEX.grantsByProgramSlot]: ['dynamodb:Query'] } },
  }),
  // A grant's life for integrators (core/integrator-grant-life.ts).
  functionRoute(
    'CancelGrantByKey',
    'POST /programs/{programId}/grants/{grantId}/cancel',
    'cancel-grant',
    { access: GRANT_CHANGE, rateBuckets: true },
  ),
  functionRoute(
    'TestTransitionByKey',
    'POST /programs/{programId}/grants/{grantId}/test-transition',
    'test-transition',
    { access: GRANT_CHANGE, rateBuckets: true },
  ),
  // The address's grants from byRecipient, re-read strongly consistent. The e-mail is in the
  // path: access logs carry the route key only.
  functionRoute(
    'RecipientBalanceByKey',
    'GET /programs/{programId}/recipients/{email}/balance',
    'recipient-balance',
    {
      access: { ...KEY_AND_PROGRAM, grants: ['dynamodb:BatchGetItem'] },
      rateBuckets: true,
      indexes: { grants: { [INDEX.grantsByRecipient]: ['dynamodb:Query'] } },
    },
  ),
] as const satisfies readonly Route[]
