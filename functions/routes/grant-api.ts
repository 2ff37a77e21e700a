import { INDEX } from '../stores/table-schema'
import type { Route } from './route'

/**
 * The integrators' routes (`x-api-key`, checked by the function). Why each DynamoDB action:
 * docs/decisions/route-access.md#the-grant-api.
 */
export const GRANT_API_ROUTES = [
  {
    // Key and program head at most once a second (core/access-cache.ts); shard UpdateItem and
    // grant PutItem in one transaction; BatchGetItem reads the shards, GetItem a replay.
    id: 'GrantTokens',
    routeKey: 'POST /programs/{programId}/grant-tokens',
    entry: 'functions/handlers/grant-tokens.handler.ts',
    auth: 'function',
    access: {
      apiKeys: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
      programs: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:BatchGetItem'],
      grants: ['dynamodb:PutItem', 'dynamodb:GetItem'],
    },
  },
  {
    id: 'GetGrant',
    routeKey: 'GET /programs/{programId}/grants/{grantId}',
    entry: 'functions/handlers/get-grant.handler.ts',
    auth: 'function',
    access: {
      apiKeys: ['dynamodb:BatchGetItem'],
      grants: ['dynamodb:BatchGetItem'],
    },
  },
  // The integrators' reads: key and program in one BatchGetItem, read fresh.
  {
    id: 'GetProgramByKey',
    routeKey: 'GET /programs/{programId}',
    entry: 'functions/handlers/get-program.handler.ts',
    auth: 'function',
    access: {
      apiKeys: ['dynamodb:BatchGetItem'],
      programs: ['dynamodb:BatchGetItem'],
    },
  },
  {
    id: 'ListGrantsByKey',
    routeKey: 'GET /programs/{programId}/grants',
    entry: 'functions/handlers/list-grants.handler.ts',
    auth: 'function',
    listsGrants: true,
    access: {
      apiKeys: ['dynamodb:BatchGetItem'],
      programs: ['dynamodb:BatchGetItem'],
    },
    indexes: { grants: { [INDEX.grantsByProgramSlot]: ['dynamodb:Query'] } },
  },
  // A grant's life for integrators (core/integrator-grant-life.ts): the grant written on the state
  // it was read in; an unaccepted end gives its shares back to the program.
  {
    id: 'CancelGrantByKey',
    routeKey: 'POST /programs/{programId}/grants/{grantId}/cancel',
    entry: 'functions/handlers/cancel-grant.handler.ts',
    auth: 'function',
    access: {
      apiKeys: ['dynamodb:BatchGetItem'],
      programs: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
      grants: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
    },
  },
  {
    id: 'TestTransitionByKey',
    routeKey: 'POST /programs/{programId}/grants/{grantId}/test-transition',
    entry: 'functions/handlers/test-transition.handler.ts',
    auth: 'function',
    access: {
      apiKeys: ['dynamodb:BatchGetItem'],
      programs: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
      grants: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
    },
  },
  {
    // The address's grants from byRecipient, re-read strongly consistent. The e-mail is in the
    // path: access logs carry the route key only.
    id: 'RecipientBalanceByKey',
    routeKey: 'GET /programs/{programId}/recipients/{email}/balance',
    entry: 'functions/handlers/recipient-balance.handler.ts',
    auth: 'function',
    access: {
      apiKeys: ['dynamodb:BatchGetItem'],
      programs: ['dynamodb:BatchGetItem'],
      grants: ['dynamodb:BatchGetItem'],
    },
    indexes: { grants: { [INDEX.grantsByRecipient]: ['dynamodb:Query'] } },
  },
] as const satisfies readonly Route[]
