import * as z from 'zod/mini'
import type { ErrorCode } from '../functions/domain/errors'
import { GRANT_PAGE } from '../functions/domain/grant-list-query'
import { GrantRequestSchema, LIMITS } from '../functions/domain/grant-request.schema'
import { ERROR_CODES, MANAGEMENT_ONLY_CODES, problemType } from '../functions/http/problem'

/**
 * The OpenAPI 3.1 document of the API, generated from the zod schemas the handler validates
 * with and from the error catalogue. `npm run openapi` writes it to openapi.json; a test fails
 * when the checked-in file differs from what this produces.
 */
const GrantSchema = z.object({
  id: z.string().check(z.regex(/^gr_[0-9a-z]{26}$/)),
  object: z.literal('grant'),
  programId: z.string().check(z.regex(/^prg_[0-9a-z]{26}$/)),
  mode: z.enum(['TEST', 'LIVE']),
  recipient: z.object({
    email: z.email(),
    name: z.optional(z.string()),
  }),
  reason: z.string(),
  amount: z.int().check(z.positive(), z.maximum(LIMITS.maxAmount)),
  status: z.literal('reserved'),
  createdAt: z.iso.datetime(),
})

const ProgramSchema = z.object({
  id: z.string().check(z.regex(/^prg_[0-9a-z]{26}$/)),
  object: z.literal('program'),
  mode: z.enum(['TEST', 'LIVE']),
  name: z.string(),
  status: z.enum(['active', 'paused', 'closed']),
  pool: z.nullable(z.int().check(z.positive())),
  issued: z.int().check(z.nonnegative()),
  remaining: z.nullable(z.int().check(z.nonnegative())),
})

const GRANT_EXAMPLE = {
  id: 'gr_5k2x9q8w7e6r5t4y3v2j1h0p9a',
  object: 'grant',
  programId: 'prg_0h7d3k9m2n4p6q8r1s3t5v7w9x',
  mode: 'TEST',
  recipient: { email: 'ann@example.com', name: 'Ann' },
  reason: 'Referral bonus',
  amount: 1,
  status: 'reserved',
  createdAt: '2026-11-26T09:30:00.000Z',
}

// The integrators' contract: the management API's own codes are not part of it.
const codes = (Object.keys(ERROR_CODES) as ErrorCode[]).filter(
  (code) => !MANAGEMENT_ONLY_CODES.includes(code),
)
const ProblemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.int(),
  detail: z.string(),
  code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
  requestId: z.string(),
  errors: z.optional(z.array(z.object({ field: z.string(), message: z.string() }))),
})

const jsonSchema = (schema: z.ZodMiniType, io: 'input' | 'output') => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as Record<
    string,
    unknown
  >
  return rest
}

const STATUS_TEXT: Record<number, string> = {
  400: 'The request is malformed or a field is invalid',
  401: 'The API key is missing, or malformed, unknown, revoked or expired',
  403: 'The key is of the other mode (TEST/LIVE) than the program',
  404: 'No such program, grant or route for this key',
  405: 'The path exists, but not with this method (HEAD and OPTIONS included); `Allow` lists its methods',
  409: 'The program refuses the grant, or a concurrent request holds it',
  413: 'The body is larger than 16 KiB',
  415: 'The body is not JSON',
  422: 'The Idempotency-Key was used with a different request',
  500: 'Unexpected error; nothing internal is revealed',
  503: 'DynamoDB is throttled or unavailable; retry with the same Idempotency-Key',
}

const problemResponse = (status: number) => {
  const here = codes.filter((code) => ERROR_CODES[code] === status)
  return {
    description: `${STATUS_TEXT[status]}. Codes: ${here.map((c) => `\`${c}\``).join(', ')}.`,
    headers: {
      'x-request-id': { $ref: '#/components/headers/RequestId' },
      ...(status === 405
        ? {
            Allow: {
              description: 'The methods the path has, comma-separated (RFC 9110).',
              required: true,
              schema: { type: 'string', example: 'POST' },
            },
          }
        : {}),
      ...(status === 503 ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}),
      ...(here.includes('request_conflict')
        ? {
            'Retry-After': {
              description: 'Seconds to wait before retrying; sent with request_conflict only.',
              schema: { type: 'string', pattern: '^[0-9]+$' },
            },
          }
        : {}),
    },
    content: {
      'application/problem+json': {
        schema: { $ref: '#/components/schemas/Problem' },
        example: {
          type: problemType(here[0] as string),
          title: 'Program pool exhausted',
          status,
          detail: 'Human-readable explanation.',
          code: here[0],
          requestId: '0f6c2f8e-1f0b-4a53-9d5c-8b1c1f4c2a10',
        },
      },
    },
  }
}

const problems = (statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [String(s), { $ref: `#/components/responses/Problem${s}` }]),
  )

/** The schema says what `""` and `null` mean; the runtime schema carries no prose (bundle size). */
const describeName = (schema: Record<string, unknown>) => {
  const recipient = (schema.properties as Record<string, { properties: Record<string, object> }>)
    .recipient
  if (recipient?.properties.name) {
    recipient.properties.name = {
      ...recipient.properties.name,
      description:
        'Optional. "" and null mean "no name": the grant is stored and answered without one (integrations written for the reference product send them when the name is unknown).',
    }
  }
  return schema
}

export const buildOpenApi = () => ({
  openapi: '3.1.0',
  info: {
    title: 'Virtual-share grant API',
    version: '1.0.0',
    description:
      'Grant virtual shares to recipients within programs. Every program is in TEST or LIVE mode; use a key of the same mode. Send an Idempotency-Key with every grant and reuse it on every retry: a grant is made at most once. Errors are RFC 9457 problem details with a stable `code`.',
    contact: { name: 'Virtual-share grant service' },
    license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  },
  servers: [{ url: 'http://localhost:3000', description: 'npm start' }],
  security: [{ apiKey: [] }],
  tags: [
    { name: 'Grants', description: 'Grant virtual shares and read grants back.' },
    {
      name: 'Programs',
      description: 'Read a program: its mode, status and what is left of its pool.',
    },
  ],
  // OpenAPI has no place for "any other method": a path below asked with a method it does not
  // list is answered by API Gateway's $default route (the NotFound function) with this.
  'x-method-not-allowed': {
    description:
      'A path below asked with a method it does not list (HEAD and OPTIONS included) is answered 405 `method_not_allowed`, with an `Allow` header listing the methods it has.',
    response: { $ref: '#/components/responses/Problem405' },
  },
  paths: {
    '/programs/{programId}/grant-tokens': {
      post: {
        operationId: 'grantTokens',
        tags: ['Grants'],
        summary: 'Grant virtual shares to a recipient',
        description:
          'Creates a grant in the program. With an Idempotency-Key, a retry of the same request replays the original 201 (Idempotent-Replayed: true) and writes nothing; the same key with a different request is 422.',
        parameters: [
          { $ref: '#/components/parameters/ProgramId' },
          { $ref: '#/components/parameters/IdempotencyKey' },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/GrantRequest' },
              example: {
                recipient: { email: 'ann@example.com' },
                reason: 'Referral bonus',
                amount: 1,
              },
            },
          },
        },
        responses: {
          '201': {
            description: 'The grant was made (or, with Idempotent-Replayed: true, had been made).',
            headers: {
              Location: { $ref: '#/components/headers/Location' },
              'x-request-id': { $ref: '#/components/headers/RequestId' },
              'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' },
            },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Grant' } } },
          },
          ...problems([400, 401, 403, 404, 409, 413, 415, 422, 500, 503]),
        },
      },
    },
    '/programs/{programId}/grants/{grantId}': {
      get: {
        operationId: 'getGrant',
        tags: ['Grants'],
        summary: 'Read a grant',
        description:
          'Returns the grant exactly as its 201 did; use it to check a grant after a timeout.',
        parameters: [
          { $ref: '#/components/parameters/ProgramId' },
          { $ref: '#/components/parameters/GrantId' },
        ],
        responses: {
          '200': {
            description: 'The grant.',
            headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Grant' } } },
          },
          ...problems([401, 403, 404, 500, 503]),
        },
      },
    },
    '/programs/{programId}': {
      get: {
        operationId: 'getProgram',
        tags: ['Programs'],
        summary: 'Read a program',
        description:
          "The program of the key's issuer, in the key's mode: its name, status, pool and what is left of it (`pool` and `remaining` are null for a program without a pool). Another issuer's program answers exactly like one that does not exist (404); a key of the other mode is 403.",
        parameters: [{ $ref: '#/components/parameters/ProgramId' }],
        responses: {
          '200': {
            description: 'The program.',
            headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } },
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Program' },
                example: {
                  id: 'prg_0h7d3k9m2n4p6q8r1s3t5v7w9x',
                  object: 'program',
                  mode: 'TEST',
                  name: 'Referral programme',
                  status: 'active',
                  pool: 10000,
                  issued: 1250,
                  remaining: 8750,
                },
              },
            },
          },
          ...problems([401, 403, 404, 500, 503]),
        },
      },
    },
    '/programs/{programId}/grants': {
      get: {
        operationId: 'listGrants',
        tags: ['Grants'],
        summary: "List a program's grants",
        description:
          "Newest first, a page at a time: pass `nextCursor` back as `cursor` for the next page; the last page has `nextCursor: null`. With `recipient`, only that recipient's grants (the address is normalised as `recipient.email` is); such a page may hold fewer than `limit` grants, even none, and still have a `nextCursor`. The same key rules as reading a grant.",
        parameters: [
          { $ref: '#/components/parameters/ProgramId' },
          {
            name: 'recipient',
            in: 'query',
            required: false,
            description: 'Only grants to this address (trimmed and lower-cased before comparing).',
            schema: { type: 'string', format: 'email', maxLength: LIMITS.maxEmailLength },
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description:
              'The `nextCursor` of the previous page, as it was given (opaque; anything else is 400).',
            schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,100}$' },
          },
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: `Grants per page, 1 to ${GRANT_PAGE.max} (default ${GRANT_PAGE.default}).`,
            schema: {
              type: 'integer',
              minimum: 1,
              maximum: GRANT_PAGE.max,
              default: GRANT_PAGE.default,
            },
          },
        ],
        responses: {
          '200': {
            description: 'A page of grants, newest first.',
            headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } },
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/GrantList' },
                example: {
                  object: 'list',
                  data: [GRANT_EXAMPLE],
                  nextCursor:
                    'MjAyNi0xMS0yNlQwOTozMDowMC4wMDBaIGdyXzVrMng5cTh3N2U2cjV0NHkzdjJqMWgwcDlh',
                },
              },
            },
          },
          ...problems([400, 401, 403, 404, 500, 503]),
        },
      },
    },
  },
  components: {
    securitySchemes: {
      apiKey: {
        type: 'apiKey',
        in: 'header',
        name: 'x-api-key',
        description: 'vs_test_... for TEST programs, vs_live_... for LIVE programs.',
      },
    },
    parameters: {
      ProgramId: {
        name: 'programId',
        in: 'path',
        required: true,
        description: 'The program that issues the shares.',
        schema: { type: 'string', pattern: '^prg_[0-9a-z]{26}$' },
      },
      GrantId: {
        name: 'grantId',
        in: 'path',
        required: true,
        description: 'The grant id from the 201 (also the last segment of its Location).',
        schema: { type: 'string', pattern: '^gr_[0-9a-z]{26}$' },
      },
      IdempotencyKey: {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'One per logical grant, reused on every retry; scoped to the issuer and mode, kept as long as the grant.',
        schema: {
          type: 'string',
          minLength: 1,
          maxLength: LIMITS.maxIdempotencyKeyLength,
          pattern: '^[\\x20-\\x7e]+$',
        },
      },
    },
    headers: {
      RequestId: {
        description: 'Id of this request; quote it when reporting a problem.',
        schema: { type: 'string' },
      },
      Location: { description: 'Path of the grant.', schema: { type: 'string' } },
      IdempotentReplayed: {
        description:
          'true when this answer replays an earlier request with the same Idempotency-Key.',
        schema: { type: 'string', enum: ['true'] },
      },
      RetryAfter: {
        description: 'Seconds to wait before retrying.',
        schema: { type: 'string', pattern: '^[0-9]+$' },
      },
    },
    schemas: {
      GrantRequest: describeName(jsonSchema(GrantRequestSchema, 'input')),
      Grant: jsonSchema(GrantSchema, 'output'),
      GrantList: {
        type: 'object',
        properties: {
          object: { type: 'string', const: 'list' },
          data: { type: 'array', items: { $ref: '#/components/schemas/Grant' } },
          nextCursor: {
            description: 'Pass as `cursor` for the next page; null on the last page.',
            anyOf: [{ type: 'string' }, { type: 'null' }],
          },
        },
        required: ['object', 'data', 'nextCursor'],
        additionalProperties: false,
      },
      Program: jsonSchema(ProgramSchema, 'output'),
      Problem: jsonSchema(ProblemSchema, 'output'),
    },
    responses: Object.fromEntries(
      [...new Set(codes.map((code) => ERROR_CODES[code]))].map((status) => [
        `Problem${status}`,
        problemResponse(status),
      ]),
    ),
  },
})
