import { VALUES_PAGE } from '../functions/core/program-values'
import { idPattern } from '../functions/domain/ids'
import { MAX_METHOD_LENGTH } from '../functions/domain/program-value'
import {
  DECIMAL_AMOUNT,
  MAX_VALUE_FRACTION_DIGITS,
  MAX_VALUE_INTEGER_DIGITS,
} from '../functions/domain/share-value'
import {
  BEARER,
  cursorParameter,
  ID,
  IssuerProgramParameters,
  type Json,
  jsonBody,
  manageAnswer,
  manageProblems,
  NULLABLE_CURSOR,
  pageParameter,
  schemaRef,
  TIME,
} from './openapi-parts'

/**
 * Part of openapi.json: the value of a program's share (issue 32): its history in the management
 * API (functions/routes.ts SetProgramValue, ListProgramValues; functions/http/routes/manage/
 * program-values.route.ts), and the fields the program and balance reads show of it. Put in the
 * document by lib/openapi.ts; test/manage/program-values.manage.test.ts holds real answers
 * against it.
 */

const AMOUNT = {
  type: 'string',
  pattern: DECIMAL_AMOUNT.source,
  description: `A decimal amount kept exactly, as a string (never a binary float): up to ${MAX_VALUE_INTEGER_DIGITS} digits before the point and ${MAX_VALUE_FRACTION_DIGITS} after, no sign or exponent.`,
}
const CURRENCY = {
  type: 'string',
  pattern: '^[A-Z]{3}$',
  description: 'ISO 4217 currency code, upper case (EUR, USD, CHF, ...).',
}
const DATE = { type: 'string', format: 'date' }
const orNull = (schema: Json, description: string) => ({
  anyOf: [schema, { type: 'null' }],
  description,
})

/** What the program and balance reads show of the current value (functions/http/token-value.ts). */
export const TOKEN_VALUE_PROPERTIES = {
  tokenValue: orNull(
    AMOUNT,
    'The value of one share now (the entry of the value history with the latest `asOf`), as a decimal string; null: no value set.',
  ),
  tokenValueCurrency: orNull(CURRENCY, "`tokenValue`'s currency; null: no value set."),
  tokenValueCalculatedDate: orNull(
    DATE,
    'The date `tokenValue` was calculated ("as of"); null: no value set.',
  ),
}
export const TOKEN_VALUE_REQUIRED = Object.keys(TOKEN_VALUE_PROPERTIES)
/** The balance's `acceptedValue`. */
export const ACCEPTED_VALUE = orNull(
  { type: 'string', pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$' },
  'What the accepted shares are worth at `tokenValue`: `accepted` × `tokenValue`, computed exactly, with as many digits after the point as `tokenValue` has; null: no value set.',
)
export const TOKEN_VALUE_EXAMPLE = {
  tokenValue: '12.50',
  tokenValueCurrency: 'EUR',
  tokenValueCalculatedDate: '2026-11-01',
}

const VALUE_EXAMPLE = {
  object: 'program_value',
  id: 'val_5k2x9q8w7e6r5t4y3v2j1h0p9a',
  programId: 'prg_0h7d3k9m2n4p6q8r1s3t5v7w9x',
  amount: '12.50',
  currency: 'EUR',
  asOf: '2026-11-01',
  method: 'Last financing round, 409A by an outside firm',
  setAt: '2026-11-02T10:15:00.000Z',
  setBy: 'ann@example.com',
  current: true,
}

const WHO =
  "Not a member of the issuer (or no such issuer): `404 issuer_not_found`. Another issuer's program, an unknown or a malformed id: `404 program_not_found`, the same answer."

export const programValuePaths: Record<string, Json> = {
  '/manage/issuers/{issuerId}/programs/{programId}/values': {
    get: {
      operationId: 'manageListProgramValues',
      tags: ['Management'],
      summary: "A program's value history (viewer)",
      description: `Every value set for the program, latest \`asOf\` first (on the same date, the one set last first), a page at a time; \`current\` marks the program's value now (what \`GET /programs/{programId}\` shows as \`tokenValue\`). Any member may read it. Any other query parameter is refused and named (\`400 validation_failed\`). ${WHO}`,
      security: BEARER,
      parameters: [
        ...IssuerProgramParameters,
        cursorParameter,
        pageParameter('Entries', VALUES_PAGE),
      ],
      responses: {
        '200': manageAnswer('The entries, latest first.', 'ProgramValueList', {
          object: 'list',
          data: [VALUE_EXAMPLE],
          nextCursor: null,
        }),
        ...manageProblems([400, 401, 403, 404, 500, 503]),
      },
    },
    post: {
      operationId: 'manageSetProgramValue',
      tags: ['Management'],
      summary: "Set the value of a program's share (admin)",
      description: `A new entry of the program's value history: the amount per share as a decimal string (kept exactly), its ISO 4217 currency, the date it was calculated (\`asOf\`: a real date, not in the future; a date that is already today somewhere on Earth, UTC+14, is allowed) and an optional note on the method (trimmed, at most ${MAX_METHOD_LENGTH} characters, one line; empty or null: none). The entry becomes the program's value (\`current: true\`) unless the current one has a later \`asOf\`: a backdated entry joins the history only. The entry, the program's value, the audit entry (\`program.value\`) and the \`program.value_changed\` webhook event are written in one transaction. A wrong field is \`400 validation_failed\` naming each one (an unknown field too), and nothing is written. Admin or owner; a viewer is \`403 forbidden\`. ${WHO} A change DynamoDB kept refusing is \`409 request_conflict\` with \`Retry-After\`, and nothing was written.`,
      security: BEARER,
      parameters: IssuerProgramParameters,
      requestBody: jsonBody('ProgramValueRequest', {
        amount: '12.50',
        currency: 'EUR',
        asOf: '2026-11-01',
        method: 'Last financing round, 409A by an outside firm',
      }),
      responses: {
        '201': manageAnswer('The entry as it was stored.', 'ProgramValue', VALUE_EXAMPLE),
        ...manageProblems([400, 401, 403, 404, 409, 413, 415, 500, 503]),
      },
    },
  },
}

export const programValueSchemas: Record<string, Json> = {
  ProgramValue: {
    type: 'object',
    description: "An entry of a program's value history.",
    properties: {
      object: { type: 'string', const: 'program_value' },
      id: { type: 'string', pattern: idPattern('value').source },
      programId: ID.program,
      amount: AMOUNT,
      currency: CURRENCY,
      asOf: { ...DATE, description: 'The date the value was calculated.' },
      method: orNull({ type: 'string' }, 'How it was calculated; null: not said.'),
      setAt: TIME,
      setBy: {
        type: 'string',
        description: "Who set it: the member's e-mail address (or the operator CLI's label).",
      },
      current: {
        type: 'boolean',
        description: "Whether it is the program's value now (the latest `asOf`).",
      },
    },
    required: [
      'object',
      'id',
      'programId',
      'amount',
      'currency',
      'asOf',
      'method',
      'setAt',
      'setBy',
      'current',
    ],
    additionalProperties: false,
  },
  ProgramValueList: {
    type: 'object',
    description: "A page of a program's value history, the latest `asOf` first.",
    required: ['object', 'data', 'nextCursor'],
    additionalProperties: false,
    properties: {
      object: { type: 'string', const: 'list' },
      data: { type: 'array', items: schemaRef('ProgramValue') },
      nextCursor: NULLABLE_CURSOR,
    },
  },
  ProgramValueRequest: {
    type: 'object',
    properties: {
      amount: AMOUNT,
      currency: CURRENCY,
      asOf: {
        ...DATE,
        description:
          'YYYY-MM-DD, a real date, not after the date it is in UTC+14 (today somewhere on Earth).',
      },
      method: orNull(
        { type: 'string', maxLength: MAX_METHOD_LENGTH },
        'How the value was calculated; trimmed; empty or null: none.',
      ),
    },
    required: ['amount', 'currency', 'asOf'],
    additionalProperties: false,
  },
}
