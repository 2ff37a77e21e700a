import { BATCH_LIMITS } from '../functions/domain/batch'
import { PREVIEW_PROBLEMS_PER_PAGE } from '../functions/domain/batch-rows'
import { BATCH_PAGE } from '../functions/http/batch-view'
import { UPLOAD_ID } from '../functions/stores/uploads.store'
import { GRANT_BATCH_PROPERTIES, GRANT_BATCH_REQUIRED } from './openapi-grant-batch'
import {
  BEARER,
  IssuerProgramParameters,
  jsonBody,
  MODE,
  manageProblems,
  ok,
  pagedList,
  pageParameter,
  query,
  REQUEST_ID,
  schemaRef,
} from './openapi-parts'

/**
 * Part of openapi.json: send to many for the issuer's people: an upload, a batch's commit (or dry
 * run), the list of batches and a cancel. GetGrantBatch is in lib/openapi-manage-grant-lists.ts.
 */
/** A batch of send to many as the management API shows it (lib/openapi-grant-batch.ts). */
const GRANT_BATCH = {
  type: 'object',
  description:
    'A batch of send to many: its progress, not its rows (GET .../grant-batches/{batchId} pages them, docs/management-api.md).',
  properties: GRANT_BATCH_PROPERTIES,
  required: GRANT_BATCH_REQUIRED,
  additionalProperties: false,
}

export const manageBatchPaths = {
  '/manage/issuers/{issuerId}/programs/{programId}/grant-batch-uploads': {
    post: {
      operationId: 'manageCreateGrantBatchUpload',
      tags: ['Management'],
      summary: 'Where to upload a large CSV (admin)',
      description: `A presigned POST (S3's browser-based upload) for one new CSV of this program, up to ${BATCH_LIMITS.maxUploadBytes} bytes (32 MiB) and ${BATCH_LIMITS.maxRows} rows: send a multipart/form-data POST to \`url\` with every field of \`fields\` first and the file last (as \`file\`), before \`expiresAt\` (15 minutes). The bucket checks the policy: the key, \`Content-Type: text/csv\`, 1 byte to \`maxBytes\`; it answers 204, or 403 (400 for the size) with an XML error. Then \`POST .../grant-batches\` with \`upload: uploadId\`. Nothing is written here; an upload is kept a day.`,
      security: BEARER,
      parameters: IssuerProgramParameters,
      responses: {
        '201': ok('The presigned POST.', 'GrantBatchUpload'),
        ...manageProblems([401, 403, 404, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/programs/{programId}/grant-batches': {
    post: {
      operationId: 'manageCreateGrantBatch',
      tags: ['Management'],
      summary: 'Send to many: dry run or commit a CSV (admin)',
      description: `The rows come as \`csv\` (the text, up to ${BATCH_LIMITS.maxCsvBytes} bytes) or \`upload\` (the \`uploadId\` of a CSV uploaded for this program, up to ${BATCH_LIMITS.maxUploadBytes} bytes): one of the two; at most ${BATCH_LIMITS.maxRows} rows. \`dryRun: true\` checks every row and writes nothing (200, a preview listing every bad row and duplicate, ${PREVIEW_PROBLEMS_PER_PAGE} per answer: send \`problemsCursor\` back as \`problemsFrom\` for the next). \`dryRun: false\` needs an \`Idempotency-Key\`: 202 with the batch; the same key and the same CSV content (sent either way), reason and program answer 200 with the same batch (\`Idempotent-Replayed: true\`); another body: 422 \`idempotency_key_reused\`. An upload not found for this program (never sent, refused, another program's, or older than a day): 404 \`upload_not_found\`.`,
      security: BEARER,
      parameters: [
        ...IssuerProgramParameters,
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Required to commit (`dryRun: false`).',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
      ],
      requestBody: jsonBody('GrantBatchRequest'),
      responses: {
        '200': {
          description: 'The dry run, or a retried commit (the batch, `Idempotent-Replayed: true`).',
          headers: REQUEST_ID,
          content: {
            'application/json': {
              schema: {
                oneOf: [
                  { $ref: '#/components/schemas/GrantBatchPreview' },
                  { $ref: '#/components/schemas/GrantBatch' },
                ],
              },
            },
          },
        },
        '202': ok('The batch, committed; the worker grants its rows.', 'GrantBatch'),
        ...manageProblems([400, 401, 403, 404, 409, 413, 415, 422, 500, 503]),
      },
    },
    get: {
      operationId: 'manageListGrantBatches',
      tags: ['Management'],
      summary: "A program's batches of send to many (viewer)",
      description:
        "The program's batches, newest first, a page at a time, each with its progress: status, counts, rows per second and the time left while it runs. Read from an index: a batch committed a moment ago may show a moment later. Another issuer's program answers 404 like a missing one.",
      security: BEARER,
      parameters: [
        ...IssuerProgramParameters,
        query('cursor', 'The `nextCursor` of the previous page.', { type: 'string' }),
        pageParameter('Batches', BATCH_PAGE),
      ],
      responses: {
        '200': ok('A page of batches, newest first.', 'GrantBatchList'),
        ...manageProblems([400, 401, 403, 404, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/programs/{programId}/grant-batches/{batchId}/cancel': {
    post: {
      operationId: 'manageCancelGrantBatch',
      tags: ['Management'],
      summary: 'Cancel a batch (admin)',
      description:
        "Asks a queued, running or stalled batch to stop, audited (`batch.cancel`) in the same transaction: the answer is the batch, `canceling`. A stalled batch's chunks are sent to the worker again, so a cancel finishes it without a redrive. The worker starts no row after it sees the cancel (within about a second); a row it had started may still be granted; granted rows keep their grants; the others end `canceled` (rows `status=canceled`), and the batch `canceled` (`done` when no row was left). Asking again is the same cancel (202, nothing written; a stalled batch's chunks are sent again). A batch that finished before any cancel was asked: 409 `batch_finished`. Another issuer's or program's batch: 404 `batch_not_found`.",
      security: BEARER,
      parameters: [...IssuerProgramParameters, { $ref: '#/components/parameters/BatchId' }],
      responses: {
        '202': ok('The batch, with the cancel asked.', 'GrantBatch'),
        ...manageProblems([401, 403, 404, 409, 500, 503]),
      },
    },
  },
}

export const manageBatchSchemas = {
  GrantBatch: GRANT_BATCH,
  GrantBatchUpload: {
    type: 'object',
    properties: {
      object: { type: 'string', const: 'grant_batch_upload' },
      uploadId: { type: 'string', pattern: UPLOAD_ID.source },
      url: { type: 'string', format: 'uri', description: "The bucket's endpoint." },
      fields: {
        type: 'object',
        description:
          'The form fields, in this order, before the file: key, Content-Type, the SigV4 fields and the Policy.',
        additionalProperties: { type: 'string' },
      },
      expiresAt: { type: 'string', format: 'date-time' },
      maxBytes: { type: 'integer', const: BATCH_LIMITS.maxUploadBytes },
    },
    required: ['object', 'uploadId', 'url', 'fields', 'expiresAt', 'maxBytes'],
    additionalProperties: false,
  },
  GrantBatchRequest: {
    type: 'object',
    properties: {
      csv: { type: 'string', description: 'The CSV text: email, amount, name?, reason?.' },
      upload: { type: 'string', description: 'The uploadId of an uploaded CSV.' },
      reason: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      dryRun: { type: 'boolean' },
      problemsFrom: {
        type: 'integer',
        minimum: 1,
        description: "A dry run's problems from this row on (the previous `problemsCursor`).",
      },
    },
    required: ['dryRun'],
    oneOf: [{ required: ['csv'] }, { required: ['upload'] }],
    additionalProperties: false,
  },
  GrantBatchPreview: {
    type: 'object',
    properties: {
      object: { type: 'string', const: 'grant_batch_preview' },
      dryRun: { type: 'boolean', const: true },
      programId: { type: 'string' },
      mode: MODE,
      programStatus: { type: 'string' },
      counts: {
        type: 'object',
        properties: {
          total: { type: 'integer' },
          valid: { type: 'integer' },
          invalid: { type: 'integer' },
          duplicates: { type: 'integer' },
        },
        required: ['total', 'valid', 'invalid', 'duplicates'],
      },
      amount: { type: 'integer' },
      pool: {
        type: 'object',
        properties: {
          limited: { type: 'boolean' },
          remaining: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
          enough: { type: 'boolean' },
          shortBy: { type: 'integer' },
        },
      },
      problems: {
        type: 'array',
        maxItems: PREVIEW_PROBLEMS_PER_PAGE,
        description: 'Bad rows and duplicates, in row order, from `problemsFrom`.',
        items: {
          type: 'object',
          properties: {
            row: { type: 'integer' },
            code: { type: 'string', enum: ['validation_failed', 'duplicate_row'] },
            message: { type: 'string' },
            errors: {
              type: 'array',
              items: {
                type: 'object',
                properties: { field: { type: 'string' }, message: { type: 'string' } },
              },
            },
            duplicateOf: { type: 'integer' },
          },
          required: ['row', 'code', 'message'],
        },
      },
      problemsCursor: {
        anyOf: [{ type: 'integer' }, { type: 'null' }],
        description: 'The row the next page of problems starts from; null on the last page.',
      },
    },
    required: ['object', 'dryRun', 'counts', 'amount', 'pool', 'problems', 'problemsCursor'],
  },
  GrantBatchList: pagedList(schemaRef('GrantBatch')),
}
