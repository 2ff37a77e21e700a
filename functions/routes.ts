import type { QueueId } from './consumers'
import type { Role } from './domain/people'
import { INDEX, type TableKey } from './table-schema'

/**
 * The API's routes, the one list the CDK stack (one function per route, its authorizer, its IAM)
 * and the local server (routing, the authorizer's checks) both read. Pure data, so importing it
 * loads no handler code.
 */
export type Route = {
  /** Stable id: the function's construct id and the local server's handler name. */
  id: string
  /** API Gateway HTTP API route key. */
  routeKey: string
  /** Handler module, relative to the project root. */
  entry: string
  /**
   * Who may call it. `function`: nothing at the gateway; the function checks the caller itself
   * (the grant API's `x-api-key`, checked inside the grant transaction). `user`: the gateway's JWT
   * authorizer first (a Cognito access token: signature, issuer, client, expiry, and the scope
   * USER_SCOPE), then the function checks the person's role in the issuer on every request.
   */
  auth: 'function' | 'user'
  /**
   * For `user` routes: the lowest role in the path's issuer that may call it, or `signed-in` for
   * routes about the person themself (`GET /manage/me`).
   */
  role?: Role | 'signed-in'
  /**
   * Exactly the DynamoDB actions the function needs, hot path and error path, per table: the
   * stack grants these and nothing else. TransactWriteItems is authorised per item through these
   * actions; no Scan, no wildcard; a Query here reads one partition of the table itself.
   */
  access: Partial<Record<TableKey, readonly string[]>>
  /**
   * Actions on a table's global secondary indexes, by index name (a Query on an index is
   * authorised on `<table ARN>/index/<name>`, not on the table): the stack grants each on exactly
   * that index.
   */
  indexes?: Partial<Record<TableKey, Readonly<Record<string, readonly string[]>>>>
  /**
   * The Cognito actions the function needs, on the stack's user pool only (the stack grants them
   * on the pool's ARN, and sets USER_POOL_ID on the function). Absent: none.
   */
  cognito?: readonly string[]
  /**
   * The function sends the service's own e-mail (functions/mail/mailer.ts). The stack gives it the
   * console's address (CONSOLE_URL) and, when the stage has an SES identity (`sesFromEmail`),
   * MAIL_FROM and ses:SendEmail on that identity only (Identity.allowServiceMail). Absent: none.
   */
  mail?: boolean
  /**
   * The function renders links to the recipient's page (`<origin>/offer#t=...`): the stack gives
   * it that origin (RECIPIENT_ORIGIN, the console's CloudFront domain). Absent: none.
   */
  recipientLinks?: boolean
  /**
   * The send-to-many upload bucket (lib/upload-bucket.ts): `presign` signs POST policies for keys
   * under `uploads/` (s3:PutObject there: a presigned POST acts with the signer's rights), `read`
   * reads them (s3:GetObject there). The stack sets UPLOAD_BUCKET and grants exactly that, on
   * that prefix only. Absent: none.
   */
  uploads?: 'presign' | 'read'
  /**
   * It lists a program's grants (stores/grant-listing.dynamodb.ts) from the index the stage says
   * (GRANTS_LIST_INDEX: `byProgramSlot`, or `byProgram` on a stage deployed with
   * `-c keepLegacyIndexes=true`): the stack sets that variable and lets it Query both meanwhile.
   * Not ListGrantBatches, which reads batches from `byProgramSlot` only.
   */
  listsGrants?: true
  /**
   * Queues the function sends to (functions/consumers.ts QUEUES): the stack grants sqs:SendMessage
   * (which also authorises SendMessageBatch) on exactly those queues and sets each one's
   * `urlVariable` on the function; its Lambda entry builds the sender from it. Absent: none.
   */
  sends?: readonly QueueId[]
  /**
   * What the function does with the webhook secrets' KMS key (functions/runtime/secret-box.ts):
   * `encrypt` (create an endpoint, rotate its secret: the new secret is sealed, never stored
   * plain) or `decrypt` (send a test event). The stack sets WEBHOOK_KMS_KEY_ID and grants exactly
   * that action on that key. Absent: none.
   */
  kms?: 'encrypt' | 'decrypt'
}

export const ROUTES = [
  {
    id: 'GrantTokens',
    routeKey: 'POST /programs/{programId}/grant-tokens',
    entry: 'functions/handlers/grant-tokens.handler.ts',
    auth: 'function',
    // The key and the program's head (GetItem, or both in one BatchGetItem) at most once a
    // second (functions/core/access-cache.ts); one shard's UpdateItem (or several, for a grant
    // no one slice holds) and the grant's PutItem in the transaction; BatchGetItem on programs
    // also reads the shards (a grant larger than a slice, a slice found dry); GetItem on grants
    // for a replay's lookup.
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
  // Reads for integrators (x-api-key), with the GET of a grant's rules: key and program in one
  // BatchGetItem, read fresh.
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
  // A grant's life for integrators (x-api-key; functions/core/integrator-grant-life.ts): key and
  // program head in one BatchGetItem, read fresh, as the reads above. Cancel and the TEST move
  // read the grant (GetItem, strongly consistent) and write it in one transaction on the state it
  // was read in (grants UpdateItem); a grant that ends unaccepted gives its shares back there
  // (programs UpdateItem on the slices it drew from, after a GetItem of the program's head; a
  // grant from before draws were recorded may read the shards: BatchGetItem).
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
    // The address's grants from the byRecipient index, then re-read strongly consistent
    // (grants BatchGetItem). The e-mail is in the path: access logs carry the route key only.
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
  // The recipient's page (console/offer.html), public: the link token (or, for a new link, the
  // address) in the JSON body, checked by the function (functions/core/grant-life.ts). Each call
  // first counts an attempt per token or address (grants UpdateItem on a `limit#` item); the
  // token's item and the grant (GetItem), the address's grants (the byRecipient index, then
  // BatchGetItem, strongly consistent) and their programs' heads (BatchGetItem). A step reads its
  // program (GetItem: rules, terms, how its pool is laid out) and writes the grant (UpdateItem).
  // A rejection gives the shares back in the same transaction (programs UpdateItem).
  {
    id: 'RecipientOffer',
    routeKey: 'POST /recipient/offer',
    entry: 'functions/handlers/recipient-offer.handler.ts',
    auth: 'function',
    access: {
      grants: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
      programs: ['dynamodb:BatchGetItem'],
    },
    indexes: { grants: { [INDEX.grantsByRecipient]: ['dynamodb:Query'] } },
  },
  {
    id: 'RecipientIdentify',
    routeKey: 'POST /recipient/identify',
    entry: 'functions/handlers/recipient-identify.handler.ts',
    auth: 'function',
    access: {
      grants: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
    },
    indexes: { grants: { [INDEX.grantsByRecipient]: ['dynamodb:Query'] } },
  },
  {
    id: 'RecipientAccept',
    routeKey: 'POST /recipient/accept',
    entry: 'functions/handlers/recipient-accept.handler.ts',
    auth: 'function',
    access: {
      grants: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
    },
    indexes: { grants: { [INDEX.grantsByRecipient]: ['dynamodb:Query'] } },
  },
  {
    id: 'RecipientDecline',
    routeKey: 'POST /recipient/decline',
    entry: 'functions/handlers/recipient-decline.handler.ts',
    auth: 'function',
    access: {
      grants: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
    },
    indexes: { grants: { [INDEX.grantsByRecipient]: ['dynamodb:Query'] } },
  },
  {
    // "Send me a new link": the address, checked, goes to the OfferMail queue and nothing is read,
    // so the answer's timing tells nobody whether the address holds offers; the OfferMailer counts
    // the attempt, reads the address's open grants and asks for their mail (consumers.ts).
    id: 'RecipientLinks',
    routeKey: 'POST /recipient/links',
    entry: 'functions/handlers/recipient-links.handler.ts',
    auth: 'function',
    access: {},
    sends: ['OfferMail'],
  },
  {
    id: 'NotFound',
    routeKey: '$default',
    entry: 'functions/handlers/not-found.handler.ts',
    auth: 'function',
    access: {},
  },
  // Programs, keys and the audit log of an issuer, for its people (functions/manage). Every one
  // reads the caller's membership (memberships GetItem) first; each change and its audit entry
  // are one transaction (audit PutItem).
  {
    id: 'ManageMe',
    routeKey: 'GET /manage/me',
    entry: 'functions/handlers/manage/me.handler.ts',
    auth: 'user',
    role: 'signed-in',
    // memberships UpdateItem: the person's pending memberships become active now that they have
    // signed in (conditional on `invited`; core/members.ts, acceptInvitations).
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
  // The members of an issuer (functions/handlers/manage, use cases in functions/core/members.ts). Every one
  // reads the caller's membership (memberships GetItem) first; each change and its audit entry
  // are one transaction (audit PutItem).
  {
    id: 'ListMembers',
    routeKey: 'GET /manage/issuers/{issuerId}/members',
    entry: 'functions/handlers/manage/list-members.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: {
      // Query: the issuer's memberships (its partition, strongly consistent). The pool is not
      // asked: a membership's status says whether the person has signed in since being added.
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
      // Query: is the address already a member. PutItem: the membership. GetItem also: the
      // status of an existing account's other memberships (are they pending invitations?).
      memberships: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem'],
      // The issuer's name, for the invitation e-mail (and the other pending issuers' names).
      issuers: ['dynamodb:GetItem'],
      audit: ['dynamodb:PutItem'],
    },
    // An existing account's other issuers, to name every pending invitation in the new e-mail.
    indexes: { memberships: { [INDEX.membershipsBySub]: ['dynamodb:Query'] } },
    // AdminCreateUser: the account and its invitation (MessageAction RESEND for an account still
    // waiting for its first sign-in). AdminGetUser: an existing account's sub and status.
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
      // GetItem: the member. Query: another owner, when an owner is demoted. UpdateItem: the
      // role. ConditionCheckItem: that other owner is still one, in the same transaction.
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
      // GetItem: the member, and the status of the person's other memberships.
      // ConditionCheckItem: still pending, in the transaction with the audit entry.
      memberships: ['dynamodb:GetItem', 'dynamodb:ConditionCheckItem'],
      // The issuer's name, and the other pending issuers', for the invitation e-mail.
      issuers: ['dynamodb:GetItem'],
      audit: ['dynamodb:PutItem'],
    },
    // The person's other issuers, to name every pending invitation in the new e-mail.
    indexes: { memberships: { [INDEX.membershipsBySub]: ['dynamodb:Query'] } },
    // AdminGetUser: still waiting for a first sign-in? AdminCreateUser with MessageAction RESEND:
    // the new password.
    cognito: ['cognito-idp:AdminCreateUser', 'cognito-idp:AdminGetUser'],
    // The "you were added" e-mail again, to an account with a password of its own.
    mail: true,
  },
  // A program's grants, for its issuer's people (functions/handlers/manage): the program must be the
  // path issuer's (programs GetItem, strongly consistent).
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
    id: 'SendGrant',
    routeKey: 'POST /manage/issuers/{issuerId}/programs/{programId}/grants',
    entry: 'functions/handlers/manage/grants-send.handler.ts',
    auth: 'user',
    role: 'admin',
    // The grant API's transaction without the key check (program UpdateItem, grant PutItem), plus
    // the audit entry; GetItem: the program's issuer and mode first, and the refusal's reasons;
    // BatchGetItem: the read of the shards (a grant larger than a slice, a slice found dry).
    access: {
      memberships: ['dynamodb:GetItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:BatchGetItem'],
      grants: ['dynamodb:PutItem', 'dynamodb:GetItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // The batch's rows go to GrantBatchWorker as one GrantBatchRows message per chunk
    // (functions/consumers.ts): no function invokes another.
    id: 'CreateGrantBatch',
    routeKey: 'POST /manage/issuers/{issuerId}/programs/{programId}/grant-batches',
    entry: 'functions/handlers/manage/grant-batch-create.handler.ts',
    auth: 'user',
    role: 'admin',
    // A CSV uploaded with CreateGrantBatchUpload's POST is read from the upload bucket.
    uploads: 'read',
    sends: ['GrantBatchRows'],
    // grants: the batch (GetItem; PutItem with its audit entry) and its rows' chunks (BatchWriteItem).
    access: {
      memberships: ['dynamodb:GetItem'],
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
      grants: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:BatchWriteItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // A presigned POST for one CSV (functions/http/routes/manage/grant-batch-upload.route.ts):
    // nothing written; the program is read to check it is the issuer's.
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
    // The program's head (programs GetItem: the path issuer's?), then its batches from the
    // byProgramSlot index (under `<programId>#batches`, a key no grant has), newest first.
    id: 'ListGrantBatches',
    routeKey: 'GET /manage/issuers/{issuerId}/programs/{programId}/grant-batches',
    entry: 'functions/handlers/manage/grant-batches-list.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: { memberships: ['dynamodb:GetItem'], programs: ['dynamodb:GetItem'] },
    indexes: { grants: { [INDEX.grantsByProgramSlot]: ['dynamodb:Query'] } },
  },
  {
    // The batch (GetItem), then `cancelRequestedAt` on it (UpdateItem, on condition that it is
    // unfinished) with its audit entry in one transaction; the worker sees it and stops. A stalled
    // batch's chunks are sent again (and `enqueuedAt` set, UpdateItem), so the worker can stop it.
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
  // A grant's life, for its issuer's people (functions/core/grant-life.ts): the grant must be the
  // path issuer's (grants GetItem, strongly consistent); another issuer's answers as missing.
  {
    id: 'ManageGetGrant',
    routeKey: 'GET /manage/issuers/{issuerId}/grants/{grantId}',
    entry: 'functions/handlers/manage/grant-get.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: { memberships: ['dynamodb:GetItem'], grants: ['dynamodb:GetItem'] },
  },
  {
    // The transition, its history line and the audit entry in one transaction, with the shares
    // given back to the program's head or the shards the grant drew from (programs GetItem: the
    // head; BatchGetItem: the shards of a grant from before draws were recorded; UpdateItem).
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
    // `offer.resendRequestedAt` (grants UpdateItem) with the audit entry: the stream's reader
    // sends the offer again.
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
    // The address, its index key, the cleared link tokens and the history line (grants
    // UpdateItem) with the audit entry: the stream's reader sends the offer to the new address.
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
    // The program (GetItem, its shards BatchGetItem for the totals shown), then its settings
    // (UpdateItem, on the terms' version as read) with the audit entry.
    id: 'ProgramOfferSettings',
    routeKey: 'PATCH /manage/issuers/{issuerId}/programs/{programId}/offer-settings',
    entry: 'functions/handlers/manage/program-offer-settings.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      // The head's settings (UpdateItem) and the terms text's own item (PutItem; DeleteItem when a link replaces it).
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
    // The offer e-mail a grant would send, rendered, nothing written: the program (GetItem) for
    // its name, description and offer window; the issuer's name (GetItem).
    id: 'OfferPreview',
    routeKey: 'POST /manage/issuers/{issuerId}/programs/{programId}/offer-preview',
    entry: 'functions/handlers/manage/offer-preview.handler.ts',
    auth: 'user',
    role: 'viewer',
    // The preview shows the offer's link as the mail will.
    recipientLinks: true,
    access: {
      memberships: ['dynamodb:GetItem'],
      programs: ['dynamodb:GetItem'],
      issuers: ['dynamodb:GetItem'],
    },
  },
  // An issuer's webhook endpoints (issue 21; use cases in functions/core/webhook-endpoints.ts,
  // the table's store in functions/stores/webhooks.dynamodb.ts): the caller's membership first
  // (memberships GetItem). Endpoints live in one partition per issuer (`endpoints#<issuerId>`),
  // an endpoint's messages in one of their own (`messages#<endpointId>`). A change of an endpoint
  // and its audit entry are one transaction (webhooks PutItem/DeleteItem, audit PutItem); a test
  // or a replay writes its audit entry on its own, then its delivery onto the Webhooks queue,
  // which the sender (WebhookSender) signs and sends.
  {
    // The issuer's partition (Query, strongly consistent).
    id: 'ListWebhookEndpoints',
    routeKey: 'GET /manage/issuers/{issuerId}/webhook-endpoints',
    entry: 'functions/handlers/manage/webhook-endpoints-list.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: { memberships: ['dynamodb:GetItem'], webhooks: ['dynamodb:Query'] },
  },
  {
    // The issuer's endpoints counted per mode (Query), then the endpoint (PutItem, on condition
    // that its id is new) with its audit entry and the mode's count (UpdateItem, on condition
    // that it is under the limit) in one transaction; the new secret is sealed with the KMS key.
    id: 'CreateWebhookEndpoint',
    routeKey: 'POST /manage/issuers/{issuerId}/webhook-endpoints',
    entry: 'functions/handlers/manage/webhook-endpoint-create.handler.ts',
    auth: 'user',
    role: 'admin',
    kms: 'encrypt',
    access: {
      memberships: ['dynamodb:GetItem'],
      webhooks: ['dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    id: 'GetWebhookEndpoint',
    routeKey: 'GET /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}',
    entry: 'functions/handlers/manage/webhook-endpoint-get.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: { memberships: ['dynamodb:GetItem'], webhooks: ['dynamodb:GetItem'] },
  },
  {
    // The endpoint (GetItem), then its next version (PutItem, on condition of the version read)
    // with its audit entry.
    id: 'UpdateWebhookEndpoint',
    routeKey: 'PATCH /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}',
    entry: 'functions/handlers/manage/webhook-endpoint-update.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      webhooks: ['dynamodb:GetItem', 'dynamodb:PutItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // The endpoint (GetItem: its mode and host for the audit entry), then DeleteItem with it and
    // the mode's count (UpdateItem) in one transaction.
    id: 'DeleteWebhookEndpoint',
    routeKey: 'DELETE /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}',
    entry: 'functions/handlers/manage/webhook-endpoint-delete.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      webhooks: ['dynamodb:GetItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // As UpdateWebhookEndpoint, with a new secret sealed with the KMS key.
    id: 'RotateWebhookSecret',
    routeKey: 'POST /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/rotate-secret',
    entry: 'functions/handlers/manage/webhook-secret-rotate.handler.ts',
    auth: 'user',
    role: 'admin',
    kms: 'encrypt',
    access: {
      memberships: ['dynamodb:GetItem'],
      webhooks: ['dynamodb:GetItem', 'dynamodb:PutItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // The endpoint (GetItem), the `webhook.test` message (PutItem), the audit entry, and the
    // delivery onto the Webhooks queue. No secret is opened here: the sender signs.
    id: 'SendTestWebhook',
    routeKey: 'POST /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/test',
    entry: 'functions/handlers/manage/webhook-test-send.handler.ts',
    auth: 'user',
    role: 'admin',
    sends: ['Webhooks'],
    access: {
      memberships: ['dynamodb:GetItem'],
      webhooks: ['dynamodb:GetItem', 'dynamodb:PutItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // The endpoint (GetItem), then its messages' partition, newest first (Query).
    id: 'ListWebhookMessages',
    routeKey: 'GET /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/messages',
    entry: 'functions/handlers/manage/webhook-messages-list.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: { memberships: ['dynamodb:GetItem'], webhooks: ['dynamodb:GetItem', 'dynamodb:Query'] },
  },
  {
    // The endpoint and the message (GetItem), the audit entry, the delivery onto the queue.
    id: 'ReplayWebhookMessage',
    routeKey:
      'POST /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/messages/{messageId}/replay',
    entry: 'functions/handlers/manage/webhook-message-replay.handler.ts',
    auth: 'user',
    role: 'admin',
    sends: ['Webhooks'],
    access: {
      memberships: ['dynamodb:GetItem'],
      webhooks: ['dynamodb:GetItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // The endpoint (GetItem), the audit entry, one `replay` message onto the queue: the sender
    // pages through the messages since then.
    id: 'ReplayWebhookMessages',
    routeKey: 'POST /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/replay',
    entry: 'functions/handlers/manage/webhook-messages-replay.handler.ts',
    auth: 'user',
    role: 'admin',
    sends: ['Webhooks'],
    access: {
      memberships: ['dynamodb:GetItem'],
      webhooks: ['dynamodb:GetItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
] as const satisfies readonly Route[]

export type RouteId = (typeof ROUTES)[number]['id']

/**
 * The scope every `user` route requires. Cognito puts it in access tokens and not in ID tokens,
 * and API Gateway's JWT authorizer does not check `token_use`: requiring the scope is what keeps
 * ID tokens out.
 */
export const USER_SCOPE = 'aws.cognito.signin.user.admin'

/** The route with this id (pure data, for handlers that read their own role). */
export const routeById = (id: string): Route => {
  const route = (ROUTES as readonly Route[]).find((r) => r.id === id)
  if (!route) throw new Error(`No route ${id} in functions/routes.ts`)
  return route
}

// In a module of its own, so the grant function's bundle does not carry the route list.
export { FUNCTION_TIMEOUT_SECONDS } from './function-timeout'

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Each route with a path, compiled once: `{name}` is exactly one non-empty segment. */
const COMPILED = ROUTES.filter((route) => route.routeKey !== '$default').map((route) => {
  const [method = '', path = ''] = route.routeKey.split(' ')
  const params: string[] = []
  const source = path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment)
      if (!param) return escapeRegExp(segment)
      params.push(param[1] as string)
      return '([^/]+)'
    })
    .join('/')
  return { route, method, pattern: new RegExp(`^${source}$`), params }
})

const decodeSegment = (value: string) => {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/**
 * The route API Gateway picks for a request, or undefined when only `$default` takes it. `rawPath`
 * is the path exactly as sent (no query string, nothing resolved or normalised): `//host/...` or
 * `/a/../b` never match a route. Path parameters arrive URL-decoded, as API Gateway passes them.
 */
export const matchRoute = (method: string, rawPath: string) => {
  for (const compiled of COMPILED) {
    if (compiled.method !== method) continue
    const match = compiled.pattern.exec(rawPath)
    if (!match) continue
    const pathParameters = Object.fromEntries(
      compiled.params.map((name, i) => [name, decodeSegment(match[i + 1] as string)]),
    )
    return { route: compiled.route, pathParameters }
  }
  return undefined
}

/**
 * The methods that have a route for this raw path, sorted (`[]` for an unknown path): the `Allow`
 * header of a 405. API Gateway has no HEAD or OPTIONS of its own without CORS, so they are only
 * listed when a route declares them.
 */
export const methodsForPath = (rawPath: string): string[] =>
  [...new Set(COMPILED.filter((c) => c.pattern.test(rawPath)).map((c) => c.method))].sort()
