import { MAX_RANGE_DAYS } from '../functions/core/program-figures'
import { DAILY_COUNTERS as COUNT_NAMES } from '../functions/domain/figures'
import { CSV_MAX_BYTES } from '../functions/http/csv-answer'
import { HOLDER_PAGE } from '../functions/http/routes/manage/program-holders.route'
import { jsonOrCsv } from './openapi-manage-grant-lists'
import {
  BEARER,
  cursorParameter,
  IssuerProgramParameters,
  type Json,
  manageAnswer,
  manageProblems,
  NULLABLE_CURSOR,
  nullable,
  pageParameter,
  schemaRef,
} from './openapi-parts'

/**
 * Part of openapi.json: a program's holders (with their CSV) and its daily figures, for its
 * issuer's people (issue 32). Proved by test/manage/program-figures.manage.test.ts through
 * test/support/contract-check.ts.
 */

const COUNT_WORDS: Record<(typeof COUNT_NAMES)[number], string> = {
  made: 'Grants made that day.',
  offered: 'Grants whose offer went out that day.',
  accepted: 'Grants accepted that day.',
  declined: 'Grants declined that day.',
  ineligibleAge: 'Grants refused that day: the recipient is under the minimum age.',
  ineligibleCountry: "Grants refused that day: the recipient's country is not allowed.",
  expired: 'Grants expired that day.',
  canceled: 'Grants canceled that day.',
  sharesIssued: 'Shares of the grants made that day.',
  sharesAccepted: 'Shares accepted that day.',
  sharesReturned: 'Shares given back to the pool that day (declined, refused, expired, canceled).',
}

const COUNTS = Object.fromEntries(
  COUNT_NAMES.map((name) => [
    name,
    { type: 'integer', minimum: 0, description: COUNT_WORDS[name] },
  ]),
)

const DECIMAL = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' }
const PROGRAM_ID = { type: 'string', pattern: '^prg_[0-9a-z]{26}$' }
const DATE = { type: 'string', format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' }

const EXAMPLE_PROGRAM = 'prg_0h7d3k9m2n4p6q8r1s3t5v7w9x'
const POOL_EXAMPLE = { size: 10_000, issued: 1_250, remaining: 8_750 }
const ZERO_DAY = Object.fromEntries(COUNT_NAMES.map((name) => [name, 0]))

const dateParameter = (name: 'from' | 'to', description: string) => ({
  name,
  in: 'query',
  required: true,
  description,
  schema: DATE,
})

const POOL = {
  type: 'object',
  description: 'The pool now.',
  properties: {
    size: { ...nullable({ type: 'integer', minimum: 0 }), description: 'null: no pool.' },
    issued: { type: 'integer', minimum: 0, description: 'Shares reserved, offered or accepted.' },
    remaining: { ...nullable({ type: 'integer', minimum: 0 }), description: 'null: no pool.' },
  },
  required: ['size', 'issued', 'remaining'],
  additionalProperties: false,
}

export const figuresPaths: Record<string, Json> = {
  '/manage/issuers/{issuerId}/programs/{programId}/holders': {
    get: {
      operationId: 'manageListProgramHolders',
      tags: ['Management'],
      summary: "A program's holders, or all of them as CSV (viewer)",
      description: `Every address that holds or is offered shares of the program, most accepted shares first (then by address), a page at a time: accepted and pending shares, the share of the pool (accepted ÷ pool, a decimal to 4 places; null for a program without a pool) and the value of the accepted shares at the program's current value per share (exact decimal; null while no value is set), with the value (\`tokenValue\`, \`tokenValueCurrency\`) and the pool now. Read from the figures the grants table's stream keeps: a grant shows here moments after it changes. With \`Accept: text/csv\` (at a q at least that of any JSON type), every holder in one file, header row first; only past ${CSV_MAX_BYTES} bytes or the request's time does the file stop early, its rest named in \`x-next-cursor\` and \`Link\` (rows only, \`header=absent\`). \`limit\` pages the JSON only. Another issuer's program, or a malformed id: \`404 program_not_found\`, like a missing one.`,
      security: BEARER,
      parameters: [
        ...IssuerProgramParameters,
        cursorParameter,
        pageParameter('Holders', HOLDER_PAGE, '; JSON only'),
      ],
      responses: {
        '200': jsonOrCsv({
          description: 'A page of holders (JSON), or every holder (CSV).',
          schema: 'ProgramHolderList',
          example: {
            object: 'list',
            data: [
              {
                email: 'bob@example.com',
                accepted: 300,
                pending: 20,
                shareOfPool: '0.0300',
                value: '37.50',
              },
            ],
            nextCursor: null,
            tokenValue: '0.125',
            tokenValueCurrency: 'EUR',
            pool: POOL_EXAMPLE,
          },
          filename: 'holders-<programId>.csv',
          columns: ['email', 'accepted', 'pending', 'share_of_pool', 'value', 'currency'],
        }),
        ...manageProblems([400, 401, 403, 404, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/programs/{programId}/daily': {
    get: {
      operationId: 'manageGetProgramDaily',
      tags: ['Management'],
      summary: "A program's daily figures and its pool over time (viewer)",
      description: `Every UTC day from \`from\` to \`to\` (both included, at most ${MAX_RANGE_DAYS} days; a day without grants is zeros), the range's totals and the pool: its size, the shares issued and left now, and for each day \`remainingAtEnd\`, what was left at its end, derived back from what is left now and the shares issued and returned on every later day (null for a program without a pool). A grant counts on the day of each event (made, offered, accepted, ...). Read from the figures the grants table's stream keeps. A missing, malformed or impossible date, \`to\` before \`from\` or a longer range: \`400 validation_failed\`. Another issuer's program, or a malformed id: \`404 program_not_found\`.`,
      security: BEARER,
      parameters: [
        ...IssuerProgramParameters,
        dateParameter('from', 'The first day, YYYY-MM-DD (UTC).'),
        dateParameter('to', `The last day, YYYY-MM-DD (UTC); at most ${MAX_RANGE_DAYS} days on.`),
      ],
      responses: {
        '200': manageAnswer('The days of the range, their totals and the pool.', 'ProgramDaily', {
          object: 'daily_figures',
          programId: EXAMPLE_PROGRAM,
          from: '2026-11-27',
          to: '2026-11-28',
          days: [
            { date: '2026-11-27', ...ZERO_DAY, remainingAtEnd: 8_770 },
            {
              date: '2026-11-28',
              ...ZERO_DAY,
              made: 2,
              offered: 2,
              sharesIssued: 20,
              remainingAtEnd: 8_750,
            },
          ],
          totals: { ...ZERO_DAY, made: 2, offered: 2, sharesIssued: 20 },
          pool: POOL_EXAMPLE,
        }),
        ...manageProblems([400, 401, 403, 404, 500, 503]),
      },
    },
  },
}

export const figuresSchemas: Record<string, Json> = {
  ProgramHolder: {
    type: 'object',
    properties: {
      email: { type: 'string', description: 'The address, as grants normalise it.' },
      accepted: { type: 'integer', minimum: 0 },
      pending: { type: 'integer', minimum: 0, description: 'Shares reserved or offered.' },
      shareOfPool: { ...nullable(DECIMAL), description: 'accepted ÷ pool, 4 places.' },
      value: { ...nullable(DECIMAL), description: 'accepted × tokenValue, exact.' },
    },
    required: ['email', 'accepted', 'pending', 'shareOfPool', 'value'],
    additionalProperties: false,
  },
  ProgramHolderList: {
    type: 'object',
    properties: {
      object: { type: 'string', const: 'list' },
      data: { type: 'array', items: schemaRef('ProgramHolder') },
      nextCursor: NULLABLE_CURSOR,
      tokenValue: { ...nullable(DECIMAL), description: 'The value per share now.' },
      tokenValueCurrency: { ...nullable({ type: 'string', pattern: '^[A-Z]{3}$' }) },
      pool: POOL,
    },
    required: ['object', 'data', 'nextCursor', 'tokenValue', 'tokenValueCurrency', 'pool'],
    additionalProperties: false,
  },
  ProgramDay: {
    type: 'object',
    properties: {
      date: DATE,
      ...COUNTS,
      remainingAtEnd: {
        ...nullable({ type: 'integer' }),
        description: 'What was left of the pool at the end of the day; null: no pool.',
      },
    },
    required: ['date', ...COUNT_NAMES, 'remainingAtEnd'],
    additionalProperties: false,
  },
  ProgramDaily: {
    type: 'object',
    description: 'Every day of the range, its totals and the pool.',
    properties: {
      object: { type: 'string', const: 'daily_figures' },
      programId: PROGRAM_ID,
      from: DATE,
      to: DATE,
      days: { type: 'array', items: schemaRef('ProgramDay') },
      totals: {
        type: 'object',
        properties: COUNTS,
        required: [...COUNT_NAMES],
        additionalProperties: false,
      },
      pool: POOL,
    },
    required: ['object', 'programId', 'from', 'to', 'days', 'totals', 'pool'],
    additionalProperties: false,
  },
}
