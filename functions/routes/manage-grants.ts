import { INDEX } from '../table-schema'
import { AUDIT, MEMBER, type Route, userRoute } from './route'

/**
 * A program's grants and its batches of send to many, for its issuer's people: the program must
 * be the path issuer's (programs GetItem, strongly consistent). Why each action:
 * docs/decisions/route-access.md#grants-and-batches.
 */

const PROGRAM = '/manage/issuers/{issuerId}/programs/{programId}'
const BATCH = `${PROGRAM}/grant-batches/{batchId}`
const PROGRAM_READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem'] as const

export const MANAGE_GRANT_ROUTES = [
  userRoute('ListGrants', `GET ${PROGRAM}/grants`, 'grants-list', {
    listsGrants: true,
    role: 'viewer',
    access: { memberships: MEMBER, programs: PROGRAM_READ },
    indexes: { grants: { [INDEX.grantsByProgramSlot]: ['dynamodb:Query'] } },
  }),
  // The grant API's transaction without the key check, plus the audit entry.
  userRoute('SendGrant', `POST ${PROGRAM}/grants`, 'grants-send', {
    role: 'admin',
    access: {
      memberships: MEMBER,
      programs: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:BatchGetItem'],
      grants: ['dynamodb:PutItem', 'dynamodb:GetItem'],
      audit: AUDIT,
    },
  }),
  // Rows go to GrantBatchWorker as GrantBatchRows messages: no function invokes another. A CSV
  // uploaded with CreateGrantBatchUpload's POST is read from the upload bucket.
  userRoute('CreateGrantBatch', `POST ${PROGRAM}/grant-batches`, 'grant-batch-create', {
    role: 'admin',
    uploads: 'read',
    sends: ['GrantBatchRows'],
    access: {
      memberships: MEMBER,
      programs: PROGRAM_READ,
      grants: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:BatchWriteItem'],
      audit: AUDIT,
    },
  }),
  // A presigned POST for one CSV (http/routes/manage/grant-batch-upload.route.ts): no write.
  userRoute('CreateGrantBatchUpload', `POST ${PROGRAM}/grant-batch-uploads`, 'grant-batch-upload', {
    role: 'admin',
    uploads: 'presign',
    access: { memberships: MEMBER, programs: PROGRAM_READ },
  }),
  userRoute('GetGrantBatch', `GET ${BATCH}`, 'grant-batch-get', {
    role: 'viewer',
    access: { memberships: MEMBER, grants: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'] },
  }),
  // Batches live in byProgramSlot under `<programId>#batches`, a key no grant has.
  userRoute('ListGrantBatches', `GET ${PROGRAM}/grant-batches`, 'grant-batches-list', {
    role: 'viewer',
    access: { memberships: MEMBER, programs: ['dynamodb:GetItem'] },
    indexes: { grants: { [INDEX.grantsByProgramSlot]: ['dynamodb:Query'] } },
  }),
  // Marks the batch for the worker to stop; a stalled batch's chunks are sent again so it can.
  userRoute('CancelGrantBatch', `POST ${BATCH}/cancel`, 'grant-batch-cancel', {
    role: 'admin',
    sends: ['GrantBatchRows'],
    access: {
      memberships: MEMBER,
      grants: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      audit: AUDIT,
    },
  }),
] as const satisfies readonly Route[]
