import { BATCH_ROW_CODES } from '../functions/domain/batch'
import { GRANT_PAGE } from '../functions/domain/grant-list-query'
import { LIMITS } from '../functions/domain/grant-request.schema'
import { BATCH_RESULT_CSV_COLUMNS } from '../functions/http/batch-view'
import { CSV_MAX_BYTES } from '../functions/http/csv-answer'
import { GRANT_CSV_COLUMNS } from '../functions/http/grant-view'
import { ROW_PAGE } from '../functions/http/routes/manage/grant-batch-get.route'
import { CSV_PAGE } from '../functions/http/routes/manage/grants-list.route'
import { GRANT_BATCH_PROPERTIES, GRANT_BATCH_REQUIRED } from './openapi-grant-batch'
import { GRANT_EXAMPLE } from './openapi-grants'
import { MEMBER_EXAMPLE } from './openapi-manage-members'
import {
  BEARER,
  cursorParameter,
  IssuerProgramParameters,
  type Json,
  jsonBody,
  manageAnswer,
  manageProblems,
  NO_STORE,
  NULLABLE_CURSOR,
  pagedList,
  pageParameter,
  query,
  REQUEST_ID,
  schemaRef,
} from './openapi-parts'

/**
 * Part of openapi.json: a program's grants for its issuer's people (ListGrants, with its CSV
 * export; SendGrant) and one batch of send to many with its rows (GetGrantBatch). Proved by
 * test/manage/{grants,batch-listing}.manage.test.ts through test/support/contract-check.ts.
 */

const answer = manageAnswer

/**
 * The 200 of a route that exports (functions/http/csv-answer.ts): JSON, or with `Accept: text/csv`
 * a page of CSV whose header row is on the first page only, the next page named in
 * `x-next-cursor` and `Link`.
 */
export const jsonOrCsv = (input: {
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

const MANAGED_GRANT_EXAMPLE = {
  ...GRANT_EXAMPLE,
  recipient: { email: 'bob@example.com', name: 'Bob' },
  reason: 'Quarterly award',
  amount: 5,
  source: 'console',
  sentBy: { sub: MEMBER_EXAMPLE.memberId, email: 'ann@example.com' },
  keyId: null,
  batch: null,
  idempotencyKey: null,
  requestId: null,
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

export const manageGrantListPaths: Record<string, Json> = {
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

export const manageGrantListSchemas: Record<string, Json> = {
  ManagedGrantList: pagedList(schemaRef('ManagedGrant'), NULLABLE_CURSOR),
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
