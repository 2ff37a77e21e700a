import { AUDIT_PAGE } from '../functions/core/admin'
import { BATCH_ROW_CODES } from '../functions/domain/batch'
import { GRANT_PAGE } from '../functions/domain/grant-list-query'
import { LIMITS } from '../functions/domain/grant-request.schema'
import { MEMBER_BODY_MAX_BYTES, MEMBER_ID } from '../functions/domain/member-request.schema'
import { ROLES } from '../functions/domain/people'
import { BATCH_RESULT_CSV_COLUMNS } from '../functions/http/batch-view'
import { CSV_MAX_BYTES } from '../functions/http/csv-answer'
import { GRANT_CSV_COLUMNS } from '../functions/http/grant-view'
import { ROW_PAGE } from '../functions/http/routes/manage/grant-batch-get.route'
import { CSV_PAGE } from '../functions/http/routes/manage/grants-list.route'
import { GRANT_BATCH_PROPERTIES, GRANT_BATCH_REQUIRED } from './openapi-grant-batch'
import {
  BEARER,
  jsonBody,
  manageAnswer,
  manageProblems,
  NO_STORE,
  REQUEST_ID,
  schemaRef,
  TIME,
} from './openapi-parts'

/**
 * Part of openapi.json: the management routes about people and what they did, and a program's
 * grants (a Cognito access token), put in the document by lib/openapi.ts: who is signed in
 * (ManageMe), the audit log (ListAudit), an issuer's members and invitations (ListMembers,
 * InviteMember, ChangeMemberRole, RemoveMember, ResendInvitation), a program's grants (ListGrants,
 * with its CSV export; SendGrant) and one batch of send to many with its rows (GetGrantBatch).
 * Each route is documented from its handler (functions/http/routes/manage/<name>.route.ts) and
 * proved by test/manage/{audit-me,members,grants,batch-listing}.manage.test.ts, which pass the
 * routes' real answers through test/support/contract-check.ts.
 */

type Json = Record<string, unknown>
const ROLE = { type: 'string', enum: [...ROLES] }
const ISSUER_ID = { type: 'string', pattern: '^iss_[0-9a-z]{26}$' }
const NULLABLE_CURSOR = {
  anyOf: [{ type: 'string' }, { type: 'null' }],
  description: 'Pass as `cursor` for the next page; null on the last page.',
}
const answer = manageAnswer

/**
 * The 200 of a route that exports (functions/http/csv-answer.ts): JSON, or with `Accept: text/csv`
 * a page of CSV whose header row is on the first page only, the next page named in
 * `x-next-cursor` and `Link`.
 */
const jsonOrCsv = (input: {
  description: string
  schema: string
  example: unknown
  filename: string
  columns: readonly string[]
}) => ({
  description: input.description,
  headers: {
    ...REQUEST_ID,
    ...NO_STORE,
    'Content-Disposition': {
      description: `CSV only: \`attachment; filename="${input.filename}"\`.`,
      schema: { type: 'string' },
    },
    'x-next-cursor': {
      description: "CSV only: the next page's cursor; absent on the last page.",
      schema: { type: 'string' },
    },
    Link: {
      description:
        'CSV only: `<path?cursor=...&limit=...>; rel="next"` (the page\'s own parameters with the cursor); absent on the last page.',
      schema: { type: 'string' },
    },
  },
  content: {
    'application/json': { schema: schemaRef(input.schema), example: input.example },
    'text/csv': {
      schema: {
        type: 'string',
        description: `Sent as \`text/csv; charset=utf-8; header=present\` (the first page: the header row first) or \`header=absent\` (the next pages: rows only), so pages appended in order make one file. Columns: ${input.columns.join(', ')}. Every cell quoted; a cell that would start like a formula (\`=\`, \`+\`, \`-\`, \`@\`, tab, CR, even behind white space or format characters such as NBSP, a zero-width space or a BOM) gets a leading \`'\`; CRLF after each record.`,
      },
    },
  },
})

const ROLES_TEXT = ROLES.map((r) => `\`${r}\``).join(', ')

const IssuerParameter = { $ref: '#/components/parameters/IssuerId' }
const MemberParameters = [IssuerParameter, { $ref: '#/components/parameters/MemberId' }]
const IssuerProgramParameters = [IssuerParameter, { $ref: '#/components/parameters/ProgramId' }]
const query = (name: string, description: string, schema: Json) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
})
const cursorParameter = query(
  'cursor',
  'The `nextCursor` of the previous page, as it was given (opaque; anything else is 400 `validation_failed`).',
  { type: 'string' },
)
const pageParameter = (what: string, page: { default: number; max: number }, extra = '') =>
  query('limit', `${what} per page, 1 to ${page.max} (default ${page.default})${extra}.`, {
    type: 'integer',
    minimum: 1,
    maximum: page.max,
    default: page.default,
  })

const MEMBER_EXAMPLE = {
  memberId: '5f0c6d2e-8a1b-4c3d-9e4f-0a1b2c3d4e5f',
  email: 'ann@example.com',
  role: 'admin',
  status: 'invited',
  createdAt: '2026-11-26T09:30:00.000Z',
  invitedBy: 'owner@example.com',
}

const MANAGED_GRANT_EXAMPLE = {
  id: 'gr_5k2x9q8w7e6r5t4y3v2j1h0p9a',
  object: 'grant',
  programId: 'prg_0h7d3k9m2n4p6q8r1s3t5v7w9x',
  mode: 'TEST',
  recipient: { email: 'bob@example.com', name: 'Bob' },
  reason: 'Quarterly award',
  amount: 5,
  status: 'reserved',
  createdAt: '2026-11-26T09:30:00.000Z',
  source: 'console',
  sentBy: { sub: MEMBER_EXAMPLE.memberId, email: 'ann@example.com' },
  keyId: null,
  batch: null,
  idempotencyKey: null,
  rejectionReason: null,
  expiresAt: '2026-12-26T09:30:00.000Z',
  delivery: {
    state: 'pending',
    sends: 0,
    lastSentAt: null,
    resendRequestedAt: null,
    remindedAt: null,
  },
  identity: null,
  acceptance: null,
  history: [],
}

const BATCH_PAGE_EXAMPLE = {
  id: 'bat_5k2x9q8w7e6r5t4y3v2j1h0p9a',
  object: 'grant_batch',
  programId: 'prg_0h7d3k9m2n4p6q8r1s3t5v7w9x',
  mode: 'TEST',
  status: 'running',
  stalled: false,
  reason: 'Quarterly award',
  createdAt: '2026-11-26T09:30:00.000Z',
  createdBy: { sub: MEMBER_EXAMPLE.memberId, email: 'ann@example.com' },
  updatedAt: '2026-11-26T09:30:12.000Z',
  startedAt: '2026-11-26T09:30:01.000Z',
  finishedAt: null,
  cancelRequestedAt: null,
  canceledBy: null,
  counts: { total: 5000, granted: 1800, failed: 2, canceled: 0, pending: 3198 },
  deadLetteredChunks: 0,
  rowsPerSecond: 163.8,
  etaSeconds: 20,
  amount: 5000,
  rows: [
    {
      row: 2,
      email: 'bob@example.com',
      name: 'Bob',
      amount: 1,
      reason: 'Quarterly award',
      status: 'granted',
      grantId: 'gr_5k2x9q8w7e6r5t4y3v2j1h0p9a',
    },
    {
      row: 3,
      email: 'not-an-address',
      name: null,
      amount: 1,
      reason: 'Quarterly award',
      status: 'failed',
      code: 'validation_failed',
      message: 'email must be a valid e-mail address',
      errors: [{ field: 'email', message: 'email must be a valid e-mail address' }],
    },
  ],
  nextCursor: 'MC4y',
}

export const managePeopleParameters: Record<string, Json> = {
  MemberId: {
    name: 'memberId',
    in: 'path',
    required: true,
    description:
      "The member id from the member list: the person's Cognito `sub`. Another issuer's member, an unknown id and a malformed one answer `404 member_not_found` alike.",
    schema: { type: 'string', pattern: MEMBER_ID.source },
  },
}

export const managePeoplePaths: Record<string, Json> = {
  '/manage/me': {
    get: {
      operationId: 'manageMe',
      tags: ['Management'],
      summary: 'Who is signed in, and their issuers (signed in)',
      description:
        "The signed-in person's e-mail and every issuer they belong to, with its name and their role, by issuer name. Access tokens carry no e-mail: it comes from a membership (`null` for a person who belongs to no issuer). Memberships are read through an index, so one added a moment ago may show a little later (each issuer's own routes read the table itself). The console calls it after every sign-in, so it is also where the person's pending invitations are accepted: each `invited` membership becomes `active`. Any query parameter is refused (400).",
      security: BEARER,
      responses: {
        '200': answer('The person and their memberships.', 'Me', {
          email: 'ann@example.com',
          memberships: [
            {
              issuerId: 'iss_0h7d3k9m2n4p6q8r1s3t5v7w9x',
              issuerName: 'Example GmbH',
              role: 'admin',
            },
          ],
        }),
        ...manageProblems([400, 401, 403, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/audit': {
    get: {
      operationId: 'manageListAudit',
      tags: ['Management'],
      summary: "The issuer's audit log (viewer)",
      description: `Every change made to the issuer through the management API or the admin CLI, and every webhook endpoint the webhook sender turned off, newest first, ${AUDIT_PAGE.default} entries a page by default. Each entry was written in the same transaction as its change. Read only: no route changes or deletes an entry. Not a member of the issuer: \`404 issuer_not_found\`.`,
      security: BEARER,
      parameters: [IssuerParameter, cursorParameter, pageParameter('Entries', AUDIT_PAGE)],
      responses: {
        '200': answer('A page of entries, newest first.', 'AuditList', {
          entries: [
            {
              id: '2026-11-26T09:30:00.000Z#0a1b2c3d',
              at: '2026-11-26T09:30:00.000Z',
              actor: { kind: 'person', sub: MEMBER_EXAMPLE.memberId, email: 'ann@example.com' },
              action: 'program.pause',
              target: { type: 'program', id: 'prg_0h7d3k9m2n4p6q8r1s3t5v7w9x' },
              requestId: '0f6c2f8e-1f0b-4a53-9d5c-8b1c1f4c2a10',
              details: { from: 'active', to: 'paused' },
            },
          ],
          nextCursor: null,
        }),
        ...manageProblems([400, 401, 403, 404, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/members': {
    get: {
      operationId: 'manageListMembers',
      tags: ['Management'],
      summary: "The issuer's members and invitations (viewer)",
      description:
        'Every member and pending invitation, oldest first. `status` is `invited` until the person signs in after being added, then `active`; the user pool is not asked, so the list tells nothing about accounts elsewhere. Any query parameter is refused (400).',
      security: BEARER,
      parameters: [IssuerParameter],
      responses: {
        '200': answer('The members.', 'MemberList', { members: [MEMBER_EXAMPLE] }),
        ...manageProblems([400, 401, 403, 404, 500, 503]),
      },
    },
    post: {
      operationId: 'manageInviteMember',
      tags: ['Management'],
      summary: 'Invite a person by e-mail (owner)',
      description: `Adds the address to the issuer with a role (${ROLES_TEXT}), \`invited\`: the same answer whether or not the address already has an account, so an issuer learns nothing about accounts. A new address gets an account and Cognito's invitation with a temporary password; an account still waiting for its first sign-in gets a new invitation naming every issuer with a pending one; an account with a password gets an e-mail saying who added them (not sent without an SES identity: the membership is added all the same). The address is trimmed and lower-cased; already a member or invited here (any spelling): \`409 member_exists\`, nothing sent or written. The membership and its \`member.invite\` audit entry are one transaction. Bodies over ${MEMBER_BODY_MAX_BYTES} bytes: 413.`,
      security: BEARER,
      parameters: [IssuerParameter],
      requestBody: jsonBody('MemberInviteRequest', { email: 'ann@example.com', role: 'admin' }),
      responses: {
        '201': answer('The member, invited.', 'Member', MEMBER_EXAMPLE, {
          Location: {
            description: "The member's path (`.../members/{memberId}`).",
            required: true,
            schema: { type: 'string' },
          },
        }),
        ...manageProblems([400, 401, 403, 404, 409, 413, 415, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/members/{memberId}': {
    patch: {
      operationId: 'manageChangeMemberRole',
      tags: ['Management'],
      summary: "Change a member's role (owner)",
      description:
        "Effective on the member's very next call (roles are read on every request). The same role again: 200, nothing written. An issuer keeps an owner: demoting its last owner (a pending invitation to owner counts as one) is `409 last_owner`, checked in the same transaction as the change, so two owners demoting each other at once still leave one. Audited (`member.role`, from and to).",
      security: BEARER,
      parameters: MemberParameters,
      requestBody: jsonBody('MemberRoleRequest', { role: 'viewer' }),
      responses: {
        '200': answer('The member with the role.', 'Member', { ...MEMBER_EXAMPLE, role: 'viewer' }),
        ...manageProblems([400, 401, 403, 404, 409, 413, 415, 500, 503]),
      },
    },
    delete: {
      operationId: 'manageRemoveMember',
      tags: ['Management'],
      summary: 'Remove a member or withdraw an invitation (owner)',
      description:
        'Their very next management call for this issuer is answered 404. The account stays (it may belong to other issuers) and opens nothing here. The last owner cannot be removed (`409 last_owner`). Audited (`member.remove`). No body is read.',
      security: BEARER,
      parameters: MemberParameters,
      responses: {
        '204': { description: 'Removed.', headers: { ...REQUEST_ID, ...NO_STORE } },
        ...manageProblems([400, 401, 403, 404, 409, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/members/{memberId}/resend': {
    post: {
      operationId: 'manageResendInvitation',
      tags: ['Management'],
      summary: 'Send a pending invitation again (owner)',
      description:
        "The same answer whatever the person's account looks like: never signed in, a new temporary password in an e-mail naming every issuer with a pending invitation (it replaces the earlier password; also the way back once the 7 days ran out); a password of their own, the e-mail saying who added them. Accepted since (the person signed in): `409 member_active`, nothing sent. The e-mail goes first, then the `member.resend` audit entry. No body is read.",
      security: BEARER,
      parameters: MemberParameters,
      responses: {
        '200': answer('The member, still invited.', 'Member', MEMBER_EXAMPLE),
        ...manageProblems([400, 401, 403, 404, 409, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/programs/{programId}/grants': {
    get: {
      operationId: 'manageListGrants',
      tags: ['Management'],
      summary: "A program's grants, or their CSV export (viewer)",
      description: `Newest first, a page at a time, each grant as the management API shows it: where it came from (\`source\`: api, console or batch; \`sentBy\`, \`keyId\`, \`batch\`, \`idempotencyKey\`) and its life. With \`Accept: text/csv\` (at a q at least that of any JSON type), the same listing as CSV: every cell quoted, no cell starting like a formula, the header row on the first page only (\`header=present\` or \`absent\` in Content-Type), so pages appended in order make one file; up to ${CSV_PAGE.max} grants and at most ${CSV_MAX_BYTES} bytes a page; the next page's cursor in \`x-next-cursor\` and \`Link: <...>; rel="next"\`. Another issuer's program, or a malformed id: \`404 program_not_found\`, like a missing one.`,
      security: BEARER,
      parameters: [
        ...IssuerProgramParameters,
        query(
          'recipient',
          'Only grants to this address (trimmed and lower-cased before comparing).',
          { type: 'string', format: 'email', maxLength: LIMITS.maxEmailLength },
        ),
        cursorParameter,
        // Two page sizes, by what the answer is: the schema takes the larger.
        query(
          'limit',
          `Grants per page: JSON 1 to ${GRANT_PAGE.max} (default ${GRANT_PAGE.default}); CSV 1 to ${CSV_PAGE.max} (default ${CSV_PAGE.default}).`,
          { type: 'integer', minimum: 1, maximum: Math.max(GRANT_PAGE.max, CSV_PAGE.max) },
        ),
      ],
      responses: {
        '200': jsonOrCsv({
          description: 'A page of grants, newest first (JSON, or CSV when asked for).',
          schema: 'ManagedGrantList',
          example: { object: 'list', data: [MANAGED_GRANT_EXAMPLE], nextCursor: null },
          filename: 'grants-<programId>.csv',
          columns: GRANT_CSV_COLUMNS,
        }),
        ...manageProblems([400, 401, 403, 404, 500, 503]),
      },
    },
    post: {
      operationId: 'manageSendGrant',
      tags: ['Management'],
      summary: 'Send one grant (admin)',
      description: `The grant API's grant, sent by a member: the same body, rules, codes and transaction (\`409 program_inactive\`, \`pool_exhausted\`), with the sender recorded on the grant (\`sentBy\`, \`source: console\`) and its \`grant.send\` audit entry in the same transaction. The optional Idempotency-Key is scoped to issuer and mode as the API's (an API grant and a console send with the same key are one grant): a retry answers the first grant again with \`Idempotent-Replayed: true\` and writes nothing; the key with another grant is \`422 idempotency_key_reused\`. Another issuer's program: \`404 program_not_found\`. Bodies over ${LIMITS.maxBodyBytes} bytes: 413.`,
      security: BEARER,
      parameters: [...IssuerProgramParameters, { $ref: '#/components/parameters/IdempotencyKey' }],
      requestBody: jsonBody('GrantRequest', {
        recipient: { email: 'ann@example.com', name: 'Ann' },
        reason: 'Referral bonus',
        amount: 1,
      }),
      responses: {
        '201': answer(
          'The grant was made (or, with Idempotent-Replayed: true, had been made).',
          'ManagedGrant',
          MANAGED_GRANT_EXAMPLE,
          {
            'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' },
            Location: {
              description:
                "The grant's management path (`/manage/issuers/{issuerId}/grants/{grantId}`).",
              required: true,
              schema: { type: 'string' },
            },
          },
        ),
        ...manageProblems([400, 401, 403, 404, 409, 413, 415, 422, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/programs/{programId}/grant-batches/{batchId}': {
    get: {
      operationId: 'manageGetGrantBatch',
      tags: ['Management'],
      summary: 'A batch of send to many and its rows (viewer)',
      description: `The batch's progress (status, counts, rows per second, time left) and a page of its rows in CSV order, each with what became of it: \`granted\` (its \`grantId\`), \`failed\` (\`code\` and \`message\`: refused at commit as ${BATCH_ROW_CODES.map((c) => `\`${c}\``).join(' or ')}, or refused by the grant), \`canceled\` (never tried) or \`pending\`. \`status\` keeps rows of one state only: a filtered page may hold fewer than \`limit\` rows, even none, and still have a \`nextCursor\`. Another issuer's batch, or another program's: \`404 batch_not_found\`, like a missing one; a malformed program id: \`404 program_not_found\`. With \`Accept: text/csv\` (at a q at least that of any JSON type), the same page of rows as CSV, paged as the grants export is (the header row on the first page only; the next page in \`x-next-cursor\` and \`Link\`), in the columns a batch reads back, the outcome under \`result_\` names that a batch ignores: the failed rows, fixed, can be sent again as a new batch as they are.`,
      security: BEARER,
      parameters: [
        ...IssuerProgramParameters,
        { $ref: '#/components/parameters/BatchId' },
        cursorParameter,
        pageParameter('Rows', ROW_PAGE),
        query('status', 'Only rows in this state.', {
          type: 'string',
          enum: ['pending', 'granted', 'failed', 'canceled'],
        }),
      ],
      responses: {
        '200': jsonOrCsv({
          description: 'The batch and a page of its rows (JSON), or the rows alone (CSV).',
          schema: 'ManageGrantBatchPage',
          example: BATCH_PAGE_EXAMPLE,
          filename: 'batch-<batchId>[-<status>].csv',
          columns: BATCH_RESULT_CSV_COLUMNS,
        }),
        ...manageProblems([400, 401, 403, 404, 500, 503]),
      },
    },
  },
}

const MEMBER_PROPERTIES = {
  memberId: {
    type: 'string',
    pattern: MEMBER_ID.source,
    description: "The person's Cognito `sub`.",
  },
  email: { type: 'string', format: 'email', maxLength: LIMITS.maxEmailLength },
  role: ROLE,
  status: {
    type: 'string',
    enum: ['invited', 'active'],
    description: '`invited` until the person signs in after being added.',
  },
  createdAt: { ...TIME, description: 'When they were invited.' },
  invitedBy: {
    type: 'string',
    description: "Who invited them: a member's e-mail, or `operator CLI`.",
  },
}

/** The audit entry's actors (functions/domain/people.ts, Actor). */
const ACTORS: Record<string, Json> = {
  AuditActorPerson: {
    type: 'object',
    description: 'A signed-in member, through the management API or the console.',
    properties: {
      kind: { type: 'string', const: 'person' },
      sub: { type: 'string' },
      email: { type: 'string', format: 'email' },
    },
    required: ['kind', 'sub', 'email'],
    additionalProperties: false,
  },
  AuditActorOperator: {
    type: 'object',
    description: 'The operator, through the admin CLI.',
    properties: {
      kind: { type: 'string', const: 'operator' },
      label: { type: 'string', const: 'operator CLI' },
    },
    required: ['kind', 'label'],
    additionalProperties: false,
  },
  AuditActorService: {
    type: 'object',
    description:
      'The service itself, by a rule no person applied: the webhook sender disabling an endpoint (`webhook.disable`).',
    properties: {
      kind: { type: 'string', const: 'service' },
      label: { type: 'string', const: 'webhook sender' },
    },
    required: ['kind', 'label'],
    additionalProperties: false,
  },
}

const ROW = {
  type: 'object',
  description: 'One CSV row and what became of it.',
  properties: {
    row: {
      type: 'integer',
      minimum: 2,
      description: 'The row number a spreadsheet shows (the header is row 1).',
    },
    email: {
      type: 'string',
      description: 'As typed for a refused row, normalised for a valid one.',
    },
    name: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    amount: {
      anyOf: [{ type: 'integer' }, { type: 'string' }],
      description: 'A number for a valid row; what was typed for a refused one.',
    },
    reason: {
      anyOf: [{ type: 'string' }, { type: 'null' }],
      description: "The row's own, else the batch's.",
    },
    status: { type: 'string', enum: ['pending', 'granted', 'failed', 'canceled'] },
    grantId: { type: 'string', pattern: '^gr_[0-9a-z]{26}$', description: '`granted` only.' },
    code: {
      type: 'string',
      description: `\`failed\` only: ${BATCH_ROW_CODES.map((c) => `\`${c}\``).join(', ')} (at commit), or the grant's refusal (\`pool_exhausted\`, \`program_inactive\`, ...).`,
    },
    message: { type: 'string', description: '`failed` only.' },
    errors: {
      type: 'array',
      description: 'A row refused as `validation_failed`: each field and why.',
      items: {
        type: 'object',
        properties: { field: { type: 'string' }, message: { type: 'string' } },
        required: ['field', 'message'],
        additionalProperties: false,
      },
    },
    duplicateOf: {
      type: 'integer',
      minimum: 2,
      description: 'A `duplicate_row`: the row it repeats.',
    },
  },
  required: ['row', 'email', 'name', 'amount', 'reason', 'status'],
  additionalProperties: false,
}

export const managePeopleSchemas: Record<string, Json> = {
  Me: {
    type: 'object',
    properties: {
      email: {
        anyOf: [{ type: 'string', format: 'email' }, { type: 'null' }],
        description: 'From a membership (access tokens carry none); null with no membership.',
      },
      memberships: {
        type: 'array',
        description: 'By issuer name, then id.',
        items: {
          type: 'object',
          properties: {
            issuerId: ISSUER_ID,
            issuerName: { anyOf: [{ type: 'string' }, { type: 'null' }] },
            role: ROLE,
          },
          required: ['issuerId', 'issuerName', 'role'],
          additionalProperties: false,
        },
      },
    },
    required: ['email', 'memberships'],
    additionalProperties: false,
  },
  ...ACTORS,
  AuditEntry: {
    type: 'object',
    description:
      'One change, written in the same transaction as the change and never changed or deleted. Never a key, part of one, its hash, a password or a token.',
    properties: {
      id: {
        type: 'string',
        pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z#[0-9a-f]{8}$',
        description: 'Its time and a random suffix: sorts by time, unique.',
      },
      at: TIME,
      actor: { oneOf: Object.keys(ACTORS).map(schemaRef) },
      action: {
        type: 'string',
        description:
          'What was done: `issuer.create`, `program.create|pause|resume|close|offer_settings`, `key.create|roll|revoke`, `member.invite|role|remove|resend`, `grant.send|cancel|resend|correct_email`, `batch.commit|cancel|finish`, `webhook.create|update|delete|rotate|test|replay|disable`.',
        examples: ['program.create', 'member.invite'],
      },
      target: {
        type: 'object',
        properties: {
          // functions/domain/people.ts, AuditEntry['target']['type'].
          type: {
            type: 'string',
            enum: ['issuer', 'program', 'key', 'member', 'grant', 'batch', 'webhook_endpoint'],
          },
          id: { type: 'string' },
        },
        required: ['type', 'id'],
        additionalProperties: false,
      },
      requestId: {
        anyOf: [{ type: 'string' }, { type: 'null' }],
        description: "The management call's request id; null for the CLI and the service.",
      },
      details: {
        type: 'object',
        description:
          'Small, non-secret facts about the change (a mode, a name, from/to, a key id).',
        additionalProperties: {
          anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }],
        },
      },
    },
    required: ['id', 'at', 'actor', 'action', 'target', 'requestId', 'details'],
    additionalProperties: false,
  },
  AuditList: {
    type: 'object',
    properties: {
      entries: { type: 'array', items: schemaRef('AuditEntry') },
      nextCursor: NULLABLE_CURSOR,
    },
    required: ['entries', 'nextCursor'],
    additionalProperties: false,
  },
  Member: {
    type: 'object',
    description: 'A member of the issuer, or a pending invitation.',
    properties: MEMBER_PROPERTIES,
    required: Object.keys(MEMBER_PROPERTIES),
    additionalProperties: false,
  },
  MemberList: {
    type: 'object',
    properties: { members: { type: 'array', items: schemaRef('Member') } },
    required: ['members'],
    additionalProperties: false,
  },
  MemberInviteRequest: {
    type: 'object',
    description: 'Unknown fields are refused and named (400).',
    properties: {
      email: {
        type: 'string',
        format: 'email',
        maxLength: LIMITS.maxEmailLength,
        description: 'Trimmed and lower-cased before anything else.',
      },
      role: ROLE,
    },
    required: ['email', 'role'],
    additionalProperties: false,
  },
  MemberRoleRequest: {
    type: 'object',
    description: 'Unknown fields are refused and named (400).',
    properties: { role: ROLE },
    required: ['role'],
    additionalProperties: false,
  },
  ManagedGrantList: {
    type: 'object',
    properties: {
      object: { type: 'string', const: 'list' },
      data: { type: 'array', items: schemaRef('ManagedGrant') },
      nextCursor: NULLABLE_CURSOR,
    },
    required: ['object', 'data', 'nextCursor'],
    additionalProperties: false,
  },
  ManageGrantBatchRow: ROW,
  ManageGrantBatchPage: {
    type: 'object',
    description: 'The batch (every field of `GrantBatch`), and a page of its rows.',
    properties: {
      ...GRANT_BATCH_PROPERTIES,
      rows: { type: 'array', items: schemaRef('ManageGrantBatchRow') },
      nextCursor: NULLABLE_CURSOR,
    },
    required: [...GRANT_BATCH_REQUIRED, 'rows', 'nextCursor'],
    additionalProperties: false,
  },
}
