import { REQUEST_ID_PATTERN } from '../functions/domain/request-id'
import { REQUEST_LOG_DAYS } from '../functions/domain/request-log'
import { REQUEST_LOG_PAGE } from '../functions/domain/request-log-query'
import {
  BEARER,
  cursorParameter,
  ID,
  IssuerParameter,
  type Json,
  MODE,
  manageAnswer,
  manageAnswers,
  manageProblems,
  NULLABLE_CURSOR,
  nullable,
  pagedList,
  pageParameter,
  query,
  schemaRef,
  TIME,
} from './openapi-parts'

/**
 * Part of openapi.json: an issuer's request log (issue 33), what the integrator API answered its
 * keys. Proved by test/manage/request-log.manage.test.ts through test/support/contract-check.ts.
 */

const REQUEST_ID = { type: 'string', pattern: REQUEST_ID_PATTERN.source }
const INSTANT_WORDS = 'ISO 8601 with its offset, such as `2026-11-29T10:42:00Z`'

const REQUEST_EXAMPLE = {
  object: 'request',
  id: 'req_01m8kebp4k041061050r3gg28a',
  requestId: 'req_01m8kebp4k041061050r3gg28a',
  at: '2026-11-29T10:42:07.123Z',
  mode: 'LIVE',
  keyId: 'key_0h7d3k9m2n4p6q8r1s3t5v7w9x',
  method: 'POST',
  route: 'POST /programs/{programId}/grant-tokens',
  status: 409,
  latencyMs: 38,
  replayed: false,
  programId: 'prg_0h7d3k9m2n4p6q8r1s3t5v7w9x',
  grantId: null,
  code: 'pool_exhausted',
  idempotencyKey: 'order-1042',
}

export const requestLogPaths: Record<string, Json> = {
  '/manage/issuers/{issuerId}/requests': {
    get: {
      operationId: 'manageListRequests',
      tags: ['Management'],
      summary: "The issuer's request log (viewer)",
      description: `Every request the integrator API answered the issuer's keys in the last ${REQUEST_LOG_DAYS} days, newest first: when, which key (its id, never the key), the route's template (never the path: an address can be in it), the status and problem \`code\`, the latency, the Idempotency-Key and whether it was a replay. Never a body, a key or an address. Filters, all optional and combined: \`mode\`, \`keyId\`, \`status\`, \`code\`, \`since\` and \`until\` (inclusive, ${INSTANT_WORDS}). **A page may hold fewer than \`limit\` entries, even none, and still have a \`nextCursor\`:** a filtered page reads a bounded number of entries; follow \`nextCursor\` until it is null. A cursor goes with the \`mode\` it was made for. An unknown mode, a status not from 100 to 599, a malformed key id, code or time, \`until\` before \`since\`: \`400 validation_failed\` naming each, and nothing is read.`,
      security: BEARER,
      parameters: [
        IssuerParameter,
        query('mode', 'Only this mode’s requests; both when absent.', MODE),
        query('keyId', 'Only the requests of this API key.', ID.apiKey),
        query('status', 'Only the requests answered with this HTTP status.', {
          type: 'integer',
          minimum: 100,
          maximum: 599,
        }),
        query('code', 'Only the requests answered with this problem `code`.', {
          type: 'string',
          pattern: '^[a-z][a-z0-9_]{0,63}$',
        }),
        query(
          'since',
          `Only requests that arrived at or after this time (${INSTANT_WORDS}).`,
          TIME,
        ),
        query(
          'until',
          `Only requests that arrived at or before this time (${INSTANT_WORDS}).`,
          TIME,
        ),
        cursorParameter,
        pageParameter('Requests', REQUEST_LOG_PAGE),
      ],
      responses: manageAnswers('A page of the request log, newest first.', 'RequestLogList', {
        object: 'list',
        data: [REQUEST_EXAMPLE],
        nextCursor: null,
      }),
    },
  },
  '/manage/issuers/{issuerId}/requests/{requestId}': {
    get: {
      operationId: 'manageGetRequest',
      tags: ['Management'],
      summary: 'One request of the log, by its id (viewer)',
      description:
        "The request with this id (an answer's `Request-Id`, a problem's `requestId`, a grant's `requestId`), in either mode. A malformed id, one not in the log (never made, or older than it keeps) or another issuer's: `404 request_not_found`.",
      security: BEARER,
      parameters: [
        IssuerParameter,
        {
          name: 'requestId',
          in: 'path',
          required: true,
          description: 'The request id.',
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': manageAnswer('The request.', 'RequestLogEntry', REQUEST_EXAMPLE),
        ...manageProblems([401, 403, 404, 500, 503]),
      },
    },
  },
}

export const requestLogSchemas: Record<string, Json> = {
  RequestLogEntry: {
    type: 'object',
    description:
      'One integrator API request (functions/domain/request-log.ts): no body, no key, no address.',
    properties: {
      object: { type: 'string', const: 'request' },
      id: REQUEST_ID,
      requestId: REQUEST_ID,
      at: { ...TIME, description: 'When it arrived (UTC, to the millisecond).' },
      mode: MODE,
      keyId: ID.apiKey,
      method: { type: 'string' },
      route: {
        type: 'string',
        description: 'The route key, e.g. `POST /programs/{programId}/grant-tokens`.',
      },
      status: { type: 'integer', minimum: 100, maximum: 599 },
      latencyMs: { type: 'integer', minimum: 0 },
      replayed: {
        type: 'boolean',
        description: 'A replay of an earlier grant (`Idempotent-Replayed: true`).',
      },
      programId: nullable(ID.program),
      grantId: nullable(ID.grant),
      code: {
        ...nullable({ type: 'string' }),
        description: "The problem's `code`; null for a success.",
      },
      idempotencyKey: nullable({ type: 'string' }),
    },
    required: [
      'object',
      'id',
      'requestId',
      'at',
      'mode',
      'keyId',
      'method',
      'route',
      'status',
      'latencyMs',
      'replayed',
      'programId',
      'grantId',
      'code',
      'idempotencyKey',
    ],
    additionalProperties: false,
  },
  RequestLogList: pagedList(schemaRef('RequestLogEntry'), NULLABLE_CURSOR),
}
