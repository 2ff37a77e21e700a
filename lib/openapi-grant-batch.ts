import { BATCH_ID } from '../functions/domain/batch'
import { RATE_MIN_MS } from '../functions/http/batch-view'
import { ID, MODE } from './openapi-parts'

/**
 * A batch of send to many as the management API shows it (functions/http/batch-view.ts,
 * toBatchView): its properties and required fields on their own, so a schema that adds fields to
 * the batch (GetGrantBatch's page: the batch and a page of its rows) states them once. A closed
 * schema (additionalProperties: false) cannot be extended by allOf, hence the parts.
 * lib/openapi.ts builds the GrantBatch component from them.
 */

type Json = Record<string, unknown>

const NULLABLE_TIME = { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] }
const PERSON = {
  type: 'object',
  properties: { sub: { type: 'string' }, email: { type: 'string', format: 'email' } },
  required: ['sub', 'email'],
  additionalProperties: false,
}
const COUNT = { type: 'integer', minimum: 0 }

export const GRANT_BATCH_PROPERTIES: Record<string, Json> = {
  id: { type: 'string', pattern: BATCH_ID.source },
  object: { type: 'string', const: 'grant_batch' },
  programId: ID.program,
  mode: MODE,
  status: {
    type: 'string',
    enum: ['queued', 'running', 'canceling', 'stalled', 'done', 'canceled'],
    description:
      '`canceling`: a cancel was asked and the worker has not finished the batch yet. `stalled`: a chunk is in the dead-letter queue, its messages were never all sent, or nothing moved for 10 minutes (commit again with the same Idempotency-Key to resume). `done` and `canceled` are final.',
  },
  stalled: {
    type: 'boolean',
    description: 'Nothing will move the batch as it is (also while `canceling`).',
  },
  reason: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  createdAt: { type: 'string', format: 'date-time' },
  createdBy: PERSON,
  updatedAt: { type: 'string', format: 'date-time' },
  startedAt: {
    ...NULLABLE_TIME,
    description: 'When its first rows were committed; the rate counts from here.',
  },
  finishedAt: NULLABLE_TIME,
  cancelRequestedAt: NULLABLE_TIME,
  canceledBy: { anyOf: [PERSON, { type: 'null' }] },
  counts: {
    type: 'object',
    properties: {
      total: COUNT,
      granted: COUNT,
      failed: {
        ...COUNT,
        description: 'Refused at commit (invalid, duplicate) or by the grant.',
      },
      canceled: { ...COUNT, description: 'Never tried: the batch was canceled first.' },
      pending: { ...COUNT, description: 'Not tried yet.' },
    },
    required: ['total', 'granted', 'failed', 'canceled', 'pending'],
    additionalProperties: false,
  },
  deadLetteredChunks: {
    ...COUNT,
    description: 'Chunks whose message went to the dead-letter queue (the batch is `stalled`).',
  },
  rowsPerSecond: {
    anyOf: [{ type: 'number', minimum: 0 }, { type: 'null' }],
    description: `Rows tried per second since \`startedAt\` (until now, or until it finished); null until it has run ${RATE_MIN_MS / 1000} s.`,
  },
  etaSeconds: {
    anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }],
    description:
      'Seconds until the rows left are tried at that rate; 0 once finished; null without a rate, while canceling or stalled.',
  },
  amount: { ...COUNT, description: "The sum of the valid rows' amounts." },
}

export const GRANT_BATCH_REQUIRED = Object.keys(GRANT_BATCH_PROPERTIES)
