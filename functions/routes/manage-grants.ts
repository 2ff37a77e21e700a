import { INDEX } from '../stores/table-schema'
import type { Route } from './route'

/**
 * A program's grants and its batches of send to many, for its issuer's people: the program must
 * be the path issuer's (programs GetItem, strongly consistent). Why each action:
 * docs/decisions/route-access.md#grants-and-batches.
 */
export const MANAGE_GRANT_ROUTES = [
  {
    id: 'ListGrants',
    routeKey: 'GET /manage/issuers/{issuerId}/programs/{programId}/grants',
    entry: 'functions/handlers/manage/grants-list.handler.ts',
    auth: 'user',
    listsGrants: true,
    role: 'viewer',
    access: {
      memberships: ['dynamodb:GetItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
    },
    indexes: { grants: { [INDEX.grantsByProgramSlot]: ['dynamodb:Query'] } },
  },
  {
    // The grant API's transaction without the key check, plus the audit entry.
    id: 'SendGrant',
    routeKey: 'POST /manage/issuers/{issuerId}/programs/{programId}/grants',
    entry: 'functions/handlers/manage/grants-send.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:BatchGetItem'],
      grants: ['dynamodb:PutItem', 'dynamodb:GetItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // Rows go to GrantBatchWorker as GrantBatchRows messages: no function invokes another.
    id: 'CreateGrantBatch',
    routeKey: 'POST /manage/issuers/{issuerId}/programs/{programId}/grant-batches',
    entry: 'functions/handlers/manage/grant-batch-create.handler.ts',
    auth: 'user',
    role: 'admin',
    // A CSV uploaded with CreateGrantBatchUpload's POST is read from the upload bucket.
    uploads: 'read',
    sends: ['GrantBatchRows'],
    access: {
      memberships: ['dynamodb:GetItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
      grants: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:BatchWriteItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // A presigned POST for one CSV (http/routes/manage/grant-batch-upload.route.ts): no write.
    id: 'CreateGrantBatchUpload',
    routeKey: 'POST /manage/issuers/{issuerId}/programs/{programId}/grant-batch-uploads',
    entry: 'functions/handlers/manage/grant-batch-upload.handler.ts',
    auth: 'user',
    role: 'admin',
    uploads: 'presign',
    access: {
      memberships: ['dynamodb:GetItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
    },
  },
  {
    id: 'GetGrantBatch',
    routeKey: 'GET /manage/issuers/{issuerId}/programs/{programId}/grant-batches/{batchId}',
    entry: 'functions/handlers/manage/grant-batch-get.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: {
      memberships: ['dynamodb:GetItem'],
      grants: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
    },
  },
  {
    // Batches live in byProgramSlot under `<programId>#batches`, a key no grant has.
    id: 'ListGrantBatches',
    routeKey: 'GET /manage/issuers/{issuerId}/programs/{programId}/grant-batches',
    entry: 'functions/handlers/manage/grant-batches-list.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: { memberships: ['dynamodb:GetItem'], programs: ['dynamodb:GetItem'] },
    indexes: { grants: { [INDEX.grantsByProgramSlot]: ['dynamodb:Query'] } },
  },
  {
    // Marks the batch for the worker to stop; a stalled batch's chunks are sent again so it can.
    id: 'CancelGrantBatch',
    routeKey: 'POST /manage/issuers/{issuerId}/programs/{programId}/grant-batches/{batchId}/cancel',
    entry: 'functions/handlers/manage/grant-batch-cancel.handler.ts',
    auth: 'user',
    role: 'admin',
    sends: ['GrantBatchRows'],
    access: {
      memberships: ['dynamodb:GetItem'],
      grants: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
] as const satisfies readonly Route[]
