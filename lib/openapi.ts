import * as z from 'zod/mini'
import { BATCH_ID, BATCH_LIMITS } from '../functions/domain/batch'
import { PREVIEW_PROBLEMS_PER_PAGE } from '../functions/domain/batch-rows'
import type { ErrorCode } from '../functions/domain/errors'
import {
  DELIVERY_EVENTS,
  GRANT_STATES,
  REJECTION_REASONS,
} from '../functions/domain/grant-lifecycle'
import { GRANT_PAGE } from '../functions/domain/grant-list-query'
import { GrantRequestSchema, LIMITS } from '../functions/domain/grant-request.schema'
import {
  LINKS_ANSWER,
  RecipientAcceptBody,
  RecipientDeclineBody,
  RecipientLinksBody,
  RecipientOfferBody,
  recipientIdentifyBody,
} from '../functions/domain/recipient-request.schema'
import { TestTransitionBody } from '../functions/domain/test-transition.schema'
import { BATCH_PAGE } from '../functions/http/batch-view'
import { ERROR_CODES, MANAGEMENT_ONLY_CODES, problemType } from '../functions/http/problem'
import { UPLOAD_ID } from '../functions/stores/uploads.store'
import { GRANT_BATCH_PROPERTIES, GRANT_BATCH_REQUIRED } from './openapi-grant-batch'
import {
  managePeopleParameters,
  managePeoplePaths,
  managePeopleSchemas,
} from './openapi-manage-people'
import {
  manageProgramsParameters,
  manageProgramsPaths,
  manageProgramsSchemas,
} from './openapi-manage-programs'
import {
  BEARER,
  jsonBody,
  jsonContent,
  manageProblems,
  ok,
  problems,
  REQUEST_ID,
} from './openapi-parts'
import {
  webhookParameters,
  webhookPaths,
  webhookSchemas,
  webhooksSection,
} from './openapi-webhooks'

/**
 * The OpenAPI 3.1 document of the API, generated from the zod schemas the handler validates
 * with and from the error catalogue. `npm run openapi` writes it to openapi.json; a test fails
 * when the checked-in file differs from what this produces.
 */
export const GrantSchema = z.object({
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

export const ProgramSchema = z.object({
  id: z.string().check(z.regex(/^prg_[0-9a-z]{26}$/)),
  object: z.literal('program'),
  mode: z.enum(['TEST', 'LIVE']),
  name: z.string(),
  status: z.enum(['active', 'paused', 'closed']),
  pool: z.nullable(z.int().check(z.positive())),
  issued: z.int().check(z.nonnegative()),
  remaining: z.nullable(z.int().check(z.nonnegative())),
  tokensCount: z.int().check(z.nonnegative()),
  active: z.boolean(),
})

/** A history line (functions/domain/grant-lifecycle.ts), as the integrator API shows it. */
const HISTORY_ENTRY = {
  type: 'object',
  description:
    'One transition or delivery event, written in the same transaction as the change it records.',
  properties: {
    at: { type: 'string', format: 'date-time' },
    event: {
      type: 'string',
      enum: ['transition', 'delivery', 'address'],
      description:
        "`transition`: the state moved to `state`; `delivery`: something happened to the offer e-mail (`delivery`); `address`: the issuer corrected the recipient's address (earlier links stop working).",
    },
    state: { type: 'string', enum: [...GRANT_STATES] },
    reason: { type: 'string', enum: [...REJECTION_REASONS] },
    delivery: { type: 'string', enum: [...DELIVERY_EVENTS] },
    actor: {
      type: 'string',
      description:
        'Who: `recipient`, `key:<keyId>` (an API key of the issuer), `person` (a member of the issuer, never named here), `operator`, `service` (expiry, delivery) or `simulation` (TEST mode).',
      examples: ['key:key_0h7d3k9m2n4p6q8r1s3t5v7w9x', 'recipient', 'person'],
    },
    detail: { type: 'string', maxLength: 200 },
  },
  required: ['at', 'event', 'actor'],
  additionalProperties: false,
}

/** What a grant's life adds to the resource after creation (functions/http/grant-life-resource.ts). */
const GRANT_LIFE_PROPERTIES = {
  status: {
    type: 'string',
    enum: [...GRANT_STATES],
    description:
      '`reserved` (created; the offer is on its way), `offered` (the recipient identified and is eligible), `accepted` (final), `rejected` (see `rejectionReason`), `expired` (the offer window passed), `canceled` (by the issuer or an integrator).',
  },
  rejectionReason: {
    description: 'Why the grant was rejected; null unless `status` is `rejected`.',
    anyOf: [{ type: 'string', enum: [...REJECTION_REASONS] }, { type: 'null' }],
  },
  expiresAt: {
    type: 'string',
    format: 'date-time',
    description: 'The end of the offer window: after it, the grant can no longer be accepted.',
  },
  delivery: {
    type: 'string',
    enum: ['pending', 'sent', 'test_inbox', 'failed'],
    description:
      "The offer e-mail: `pending` until it is handed over, `sent` (LIVE), `test_inbox` (TEST: written to the issuer's TEST inbox, never mailed), `failed` after a bounce or complaint.",
  },
}

/** The grant resource's own properties, as the 201's schema has them (status widened). */
const grantLifeSchema = (history: boolean) => {
  const base = jsonSchema(GrantSchema, 'output') as {
    properties: Record<string, unknown>
    required: string[]
  }
  return {
    ...base,
    properties: {
      ...base.properties,
      ...GRANT_LIFE_PROPERTIES,
      ...(history
        ? {
            history: {
              type: 'array',
              description: 'Every transition and delivery event after creation, oldest first.',
              // Inline, not a $ref: a reader of GrantDetail alone has all of it.
              items: HISTORY_ENTRY,
            },
          }
        : {}),
    },
    required: [
      ...base.required,
      'rejectionReason',
      'expiresAt',
      'delivery',
      ...(history ? ['history'] : []),
    ],
  }
}

const BALANCE_SCHEMA = {
  type: 'object',
  description:
    "A recipient's standing in a program, in the shape a client written for the reference product reads (`type`, `person`, `tokenAmount`, `participationStatus`), plus `accepted`, `pending` and `grantCount`. The mapping is in docs/api.md (A recipient's balance).",
  properties: {
    object: { type: 'string', const: 'balance' },
    type: { type: 'string', const: 'person', description: 'Always `person`.' },
    programId: { type: 'string', pattern: '^prg_[0-9a-z]{26}$' },
    person: {
      type: 'object',
      properties: {
        firstName: {
          description:
            "The name the recipient identified with (else the grant's `recipient.name`) up to its last space; a one-word name is all `firstName`; null when no name is known.",
          anyOf: [{ type: 'string' }, { type: 'null' }],
        },
        lastName: {
          description: 'The last word of that name; null for a one-word name or none.',
          anyOf: [{ type: 'string' }, { type: 'null' }],
        },
        email: { type: 'string', format: 'email' },
        dateOfBirth: {
          type: 'null',
          description:
            'Always null: the date of birth is never kept (only whether the recipient met the minimum age).',
        },
        addressCountryCode: {
          description:
            'The country the recipient gave (ISO 3166-1 alpha-2) when the program limits countries; else null.',
          anyOf: [{ type: 'string', pattern: '^[A-Z]{2}$' }, { type: 'null' }],
        },
      },
      required: ['firstName', 'lastName', 'email', 'dateOfBirth', 'addressCountryCode'],
      additionalProperties: false,
    },
    tokenAmount: {
      type: 'integer',
      minimum: 0,
      description: 'Shares the recipient holds: those of accepted grants (= `accepted`).',
    },
    participationStatus: {
      type: 'string',
      enum: [...GRANT_STATES, 'none'],
      description:
        '`accepted` if any grant is accepted, else `offered`, else `reserved` if one is; else the state of the newest grant (`rejected`, `expired`, `canceled`); `none` without any grant in the program.',
    },
    accepted: { type: 'integer', minimum: 0, description: 'Shares of accepted grants.' },
    pending: {
      type: 'integer',
      minimum: 0,
      description: 'Shares of reserved and offered grants: counted as issued, not yet accepted.',
    },
    grantCount: {
      type: 'integer',
      minimum: 0,
      description: "The recipient's grants in the program, in any state.",
    },
  },
  required: [
    'object',
    'type',
    'programId',
    'person',
    'tokenAmount',
    'participationStatus',
    'accepted',
    'pending',
    'grantCount',
  ],
  additionalProperties: false,
}

/** One grant on the recipient's page (functions/core/grant-life.ts, RecipientGrantView). */
const RECIPIENT_GRANT = {
  type: 'object',
  properties: {
    grantId: { type: 'string', pattern: '^gr_[0-9a-z]{26}$' },
    programId: { type: 'string', pattern: '^prg_[0-9a-z]{26}$' },
    programName: { type: 'string' },
    description: { type: 'string' },
    amount: { type: 'integer', minimum: 1 },
    reason: { type: 'string' },
    state: { type: 'string', enum: [...GRANT_STATES] },
    rejectionReason: { type: 'string', enum: [...REJECTION_REASONS] },
    expiresAt: { type: 'string', format: 'date-time' },
    mode: { type: 'string', enum: ['TEST', 'LIVE'] },
    fields: {
      type: 'object',
      description: "What identifying asks for: the program's eligibility rules.",
      properties: {
        name: { type: 'boolean', const: true },
        dateOfBirth: { type: 'boolean' },
        country: { type: 'boolean' },
      },
      required: ['name', 'dateOfBirth', 'country'],
      additionalProperties: false,
    },
    countries: { type: 'array', items: { type: 'string', pattern: '^[A-Z]{2}$' } },
    minAge: { type: 'integer' },
    terms: {
      type: 'object',
      description: 'The Terms of Virtual Shares: their version, and their text or a link.',
      properties: {
        version: { type: 'integer', minimum: 0 },
        text: { type: 'string' },
        url: { type: 'string', format: 'uri' },
      },
      required: ['version'],
    },
    identified: { type: 'boolean' },
    acceptedAt: { type: 'string', format: 'date-time' },
  },
  required: [
    'grantId',
    'programId',
    'programName',
    'amount',
    'reason',
    'state',
    'expiresAt',
    'mode',
    'fields',
    'identified',
  ],
}

const RECIPIENT_VIEW = {
  type: 'object',
  description:
    "The grants this link's address holds at the link's issuer that are still open, and the one just decided.",
  properties: {
    email: { type: 'string', format: 'email' },
    grants: { type: 'array', items: { $ref: '#/components/schemas/RecipientGrant' } },
  },
  required: ['email', 'grants'],
  additionalProperties: false,
}

/** A management answer whose full shape is the management API's (docs/management-api.md). */
const SENDER = {
  type: 'object',
  properties: { sub: { type: 'string' }, email: { type: 'string', format: 'email' } },
  required: ['sub', 'email'],
  additionalProperties: false,
}
const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] })
const NULLABLE_DATE_TIME = nullable({ type: 'string', format: 'date-time' })

/** The grant as the management API shows it (functions/http/grant-view.ts, toManagedGrant). */
const managedGrantSchema = () => {
  const base = jsonSchema(GrantSchema, 'output') as {
    properties: Record<string, unknown>
    required: string[]
  }
  const properties = {
    ...base.properties,
    status: GRANT_LIFE_PROPERTIES.status,
    source: {
      type: 'string',
      enum: ['api', 'console', 'batch'],
      description:
        "`api`: an integrator's API key (`keyId`); `console`: one grant a member sent (`sentBy`); `batch`: a row of a batch a member committed (`sentBy`, `batch`).",
    },
    sentBy: nullable(SENDER),
    keyId: nullable({ type: 'string', pattern: '^key_[0-9a-z]{26}$' }),
    batch: nullable({
      type: 'object',
      properties: {
        id: { type: 'string', pattern: BATCH_ID.source },
        row: { type: 'integer', minimum: 2, description: 'Its row in the CSV (the header is 1).' },
      },
      required: ['id', 'row'],
      additionalProperties: false,
    }),
    idempotencyKey: nullable({
      type: 'string',
      description: "The key it was made with: an integrator's own, or `batch:<batchId>:row:<n>`.",
    }),
    rejectionReason: GRANT_LIFE_PROPERTIES.rejectionReason,
    expiresAt: GRANT_LIFE_PROPERTIES.expiresAt,
    delivery: {
      type: 'object',
      description: 'The offer e-mail (never its link tokens).',
      properties: {
        state: GRANT_LIFE_PROPERTIES.delivery,
        sends: { type: 'integer', minimum: 0 },
        lastSentAt: NULLABLE_DATE_TIME,
        resendRequestedAt: NULLABLE_DATE_TIME,
        remindedAt: NULLABLE_DATE_TIME,
      },
      required: ['state', 'sends', 'lastSentAt', 'resendRequestedAt', 'remindedAt'],
      additionalProperties: false,
    },
    identity: nullable({
      type: 'object',
      description:
        'What identifying kept: the name, and only what the program asks (the country; whether the recipient met the minimum age, never the date of birth).',
      properties: {
        name: { type: 'string' },
        country: { type: 'string', pattern: '^[A-Z]{2}$' },
        age: {
          type: 'object',
          properties: { atLeast: { type: 'integer' }, passed: { type: 'boolean' } },
          required: ['atLeast', 'passed'],
          additionalProperties: false,
        },
        at: { type: 'string', format: 'date-time' },
      },
      required: ['name', 'at'],
      additionalProperties: false,
    }),
    acceptance: nullable({
      type: 'object',
      properties: {
        termsVersion: { type: 'integer', minimum: 1 },
        at: { type: 'string', format: 'date-time' },
      },
      required: ['termsVersion', 'at'],
      additionalProperties: false,
    }),
    history: {
      type: 'array',
      description:
        'Every transition and delivery event after creation, oldest first; a member who acted is named (`person:<email>`), for their own issuer.',
      items: HISTORY_ENTRY,
    },
  }
  return {
    type: 'object',
    description:
      "The grant as the management API shows it: the grant resource, its state, offer and history (the issuer's own people named), and where it came from (`source`, `sentBy`, `keyId`, `batch`).",
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  }
}

/** A batch of send to many as the management API shows it (lib/openapi-grant-batch.ts). */
const GRANT_BATCH = {
  type: 'object',
  description:
    'A batch of send to many: its progress, not its rows (GET .../grant-batches/{batchId} pages them, docs/management-api.md).',
  properties: GRANT_BATCH_PROPERTIES,
  required: GRANT_BATCH_REQUIRED,
  additionalProperties: false,
}

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
export const ProblemSchema = z.object({
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
  404: 'No such program, grant or route for this key; or, on the recipient routes, a link that is unknown, used or past its offer (one answer for all)',
  405: 'The path exists, but not with this method (HEAD and OPTIONS included); `Allow` lists its methods',
  409: "The program refuses the grant, a concurrent request holds it, or the grant's state does not allow the change",
  413: 'The body is larger than the route takes (16 KiB for a grant)',
  415: 'The body is not JSON',
  422: 'The Idempotency-Key was used with a different request',
  429: 'Too many attempts for now; `Retry-After` says when to try again',
  500: 'Unexpected error; nothing internal is revealed',
  503: 'DynamoDB is throttled or unavailable; retry with the same Idempotency-Key',
}

const MANAGE_STATUS_TEXT: Record<number, string> = {
  ...STATUS_TEXT,
  401: 'No access token, or an invalid or expired one (API Gateway answers `{"message":"Unauthorized"}` itself)',
  403: 'The role is too low for this route; a token without the scope (an ID token) is API Gateway\'s `{"message":"Forbidden"}`',
  404: 'No such issuer, program, grant, member, webhook endpoint or message in this issuer',
  409: "The item's state does not allow the change, a limit is reached, or a concurrent change holds it",
  429: 'The offer was sent moments ago; `Retry-After` says when it can be sent again',
}

// Every code, for the management routes (behind sign-in): their own codes and the shared ones.
const allCodes = Object.keys(ERROR_CODES) as ErrorCode[]

const problemResponse = (status: number, manage = false) => {
  const here = (manage ? allCodes : codes).filter((code) => ERROR_CODES[code] === status)
  return {
    description: `${(manage ? MANAGE_STATUS_TEXT : STATUS_TEXT)[status]}. Codes: ${here.map((c) => `\`${c}\``).join(', ')}.`,
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
      ...(status === 503 || status === 429
        ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } }
        : {}),
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
      // API Gateway's JWT authorizer answers before any function: no or a bad token is 401, a
      // token without the scope (an ID token) 403, in its own JSON.
      ...(manage && (status === 401 || status === 403)
        ? {
            'application/json': {
              schema: { $ref: '#/components/schemas/GatewayMessage' },
              example: { message: status === 401 ? 'Unauthorized' : 'Forbidden' },
            },
          }
        : {}),
      'application/problem+json': {
        schema: { $ref: `#/components/schemas/${manage ? 'ManageProblem' : 'Problem'}` },
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

const GRANT_DETAIL_EXAMPLE = {
  ...{
    id: 'gr_5k2x9q8w7e6r5t4y3v2j1h0p9a',
    object: 'grant',
    programId: 'prg_0h7d3k9m2n4p6q8r1s3t5v7w9x',
    mode: 'TEST',
    recipient: { email: 'ann@example.com', name: 'Ann' },
    reason: 'Referral bonus',
    amount: 1,
    createdAt: '2026-11-26T09:30:00.000Z',
  },
  status: 'canceled',
  rejectionReason: null,
  expiresAt: '2026-12-26T09:30:00.000Z',
  delivery: 'test_inbox',
  history: [
    {
      at: '2026-11-26T09:30:01.200Z',
      event: 'delivery',
      delivery: 'test_inbox',
      actor: 'service',
    },
    {
      at: '2026-11-26T10:02:13.000Z',
      event: 'transition',
      state: 'canceled',
      actor: 'key:key_0h7d3k9m2n4p6q8r1s3t5v7w9x',
    },
  ],
}

const GrantIdParameters = [
  { $ref: '#/components/parameters/ProgramId' },
  { $ref: '#/components/parameters/GrantId' },
]
const IssuerGrantParameters = [
  { $ref: '#/components/parameters/IssuerId' },
  { $ref: '#/components/parameters/GrantId' },
]
const IssuerProgramParameters = [
  { $ref: '#/components/parameters/IssuerId' },
  { $ref: '#/components/parameters/ProgramId' },
]

/** The recipient's public routes: no key, no sign-in; the link token in the body. */
const recipientRoute = (
  operationId: string,
  summary: string,
  description: string,
  body: string,
  answer: { status: string; description: string; ref: string },
  statuses: number[],
) => ({
  post: {
    operationId,
    tags: ['Recipients'],
    summary,
    description,
    security: [],
    requestBody: jsonBody(body),
    responses: {
      [answer.status]: {
        description: answer.description,
        headers: {
          ...REQUEST_ID,
          'Cache-Control': {
            description: "Always `no-store`: the answer holds the recipient's own grants.",
            schema: { type: 'string', const: 'no-store' },
          },
        },
        content: jsonContent(answer.ref),
      },
      ...problems(statuses),
    },
  },
})

/** A management route over one grant's life (admin). */
const manageGrantChange = (
  operationId: string,
  summary: string,
  description: string,
  statuses: number[],
  body?: string,
) => ({
  post: {
    operationId,
    tags: ['Management'],
    summary,
    description,
    security: BEARER,
    parameters: IssuerGrantParameters,
    ...(body === undefined ? {} : { requestBody: jsonBody(body) }),
    responses: {
      '200': ok('The grant after the change.', 'ManagedGrant'),
      ...manageProblems(statuses),
    },
  },
})

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

/** The identify body with the formats its rules check (recipient-fields.ts), for readers. */
const recipientIdentifySchema = () => {
  const schema = jsonSchema(
    recipientIdentifyBody(() => 0),
    'input',
  ) as { properties: Record<string, Record<string, unknown>> }
  const props = schema.properties
  props.name = { ...props.name, description: 'As on an ID: trimmed; no control characters.' }
  props.dateOfBirth = {
    ...props.dateOfBirth,
    format: 'date',
    description:
      'YYYY-MM-DD, in the past; required when the program has a minimum age. Used for the decision and never kept.',
  }
  props.country = {
    ...props.country,
    pattern: '^[A-Za-z]{2}$',
    description:
      'ISO 3166-1 alpha-2 (any case); required when the program limits countries. Kept with the grant.',
  }
  return schema
}

const withEmailFormat = (schema: Record<string, unknown>) => {
  const props = schema.properties as Record<string, Record<string, unknown>>
  props.email = { ...props.email, format: 'email' }
  return schema
}

/** The problem's properties with every code (the management API answers all of them). */
const manageProblemProperties = () => {
  const props = (
    jsonSchema(
      z.object({
        type: z.string(),
        title: z.string(),
        status: z.int(),
        detail: z.string(),
        code: z.enum(allCodes as [ErrorCode, ...ErrorCode[]]),
        requestId: z.string(),
        errors: z.optional(z.array(z.object({ field: z.string(), message: z.string() }))),
      }),
      'output',
    ) as { properties: Record<string, unknown> }
  ).properties
  return props
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
    {
      name: 'Recipients',
      description:
        "A recipient's balance (x-api-key), and the public routes of the recipient's page (no key: the offer link's token in the body).",
    },
    {
      name: 'Management',
      description:
        "The management API, for the issuer's people (a Cognito access token of a member of the path's issuer; each route's role is checked on every request): programs and keys, members and the audit log, grants and their life, send to many (uploads, batches, their rows and results), offer settings and the TEST inbox. docs/management-api.md tells the rules behind them.",
    },
    {
      name: 'Webhooks',
      description:
        "Signed webhooks (Standard Webhooks): an issuer's endpoints in the management API (a Cognito access token), and under `webhooks` what the service POSTs to them, one entry per event kind.",
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
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/GrantDetail' } },
            },
          },
          ...problems([400, 401, 403, 404, 409, 413, 415, 422, 500, 503]),
        },
      },
    },
    '/programs/{programId}/grants/{grantId}': {
      get: {
        operationId: 'getGrant',
        tags: ['Grants'],
        summary: 'Read a grant, its state and history',
        description:
          'The grant as its 201 showed it, with where it is in its life: `status`, `rejectionReason`, `expiresAt` (the end of the offer window), `delivery` (the offer e-mail) and `history` (every transition and delivery event, oldest first; a member of the issuer is shown as `person`, never by name). Use it to check a grant after a timeout.',
        parameters: GrantIdParameters,
        responses: {
          '200': ok('The grant.', 'GrantDetail', GRANT_DETAIL_EXAMPLE),
          ...problems([401, 403, 404, 500, 503]),
        },
      },
    },
    '/programs/{programId}/grants/{grantId}/cancel': {
      post: {
        operationId: 'cancelGrant',
        tags: ['Grants'],
        summary: 'Cancel a grant',
        description:
          "Cancels a `reserved` or `offered` grant: its shares go back to the program's pool in the same transaction, and its history records `canceled` by this key. Idempotent: a canceled grant answers 200 as it is and nothing is written. An accepted grant is final (409 `grant_accepted`); a rejected or expired one is 409 `grant_state_conflict`. Another issuer's grant, another mode's or another program's answers 404 `grant_not_found`, like a missing one. No body is read.",
        parameters: GrantIdParameters,
        responses: {
          '200': ok('The grant, canceled.', 'GrantDetail', GRANT_DETAIL_EXAMPLE),
          ...problems([401, 403, 404, 409, 500, 503]),
        },
      },
    },
    '/programs/{programId}/grants/{grantId}/test-transition': {
      post: {
        operationId: 'testTransitionGrant',
        tags: ['Grants'],
        summary: 'Move a TEST grant to a state (TEST only)',
        description:
          "Moves a TEST grant to `to` through the legal steps (`reserved` -> `offered` -> `accepted`; `rejected` with `reason`, default `declined`; `expired`; `canceled`), as the recipient, the clock or the issuer would, each step on its history with the actor `simulation`; shares go back for `rejected`, `expired` and `canceled`. Moving it where it is already: 200, nothing written. A LIVE key is 409 `test_mode_only`; a move the grant's state does not allow (out of `accepted`, or `ineligible_*` once `offered`) is 409 `grant_state_conflict` or `grant_accepted`. Magic recipient addresses (`accept+...@`, `decline+...@`, `ineligible+...@`, `bounce+...@`) drive a TEST grant without this call (docs/recipients.md).",
        parameters: GrantIdParameters,
        requestBody: {
          required: true,
          content: jsonContent('TestTransitionRequest', { to: 'rejected', reason: 'declined' }),
        },
        responses: {
          '200': ok('The grant, moved.', 'GrantDetail'),
          ...problems([400, 401, 403, 404, 409, 413, 415, 500, 503]),
        },
      },
    },
    '/programs/{programId}/recipients/{email}/balance': {
      get: {
        operationId: 'getRecipientBalance',
        tags: ['Recipients'],
        summary: "A recipient's balance in a program",
        description:
          'The shares the recipient (named by their e-mail address, URL-encoded in the path) holds in the program (`tokenAmount`: accepted grants) and has pending (`pending`: reserved and offered), in the shape a client written for the reference product reads, with our own fields beside it. An address without grants in the program answers 200 with zeros and `participationStatus: none`. The same key rules as reading a program. Access logs record the route, never the path with the address.',
        parameters: [
          { $ref: '#/components/parameters/ProgramId' },
          {
            name: 'email',
            in: 'path',
            required: true,
            description:
              "The recipient's e-mail address, URL-encoded (`ann%40example.com`); trimmed and lower-cased as `recipient.email` is.",
            schema: { type: 'string', format: 'email', maxLength: LIMITS.maxEmailLength },
          },
        ],
        responses: {
          '200': {
            ...ok('The balance.', 'Balance', {
              object: 'balance',
              type: 'person',
              programId: 'prg_0h7d3k9m2n4p6q8r1s3t5v7w9x',
              person: {
                firstName: 'Ann',
                lastName: 'Smith',
                email: 'ann@example.com',
                dateOfBirth: null,
                addressCountryCode: 'DE',
              },
              tokenAmount: 3,
              participationStatus: 'accepted',
              accepted: 3,
              pending: 1,
              grantCount: 3,
            }),
            headers: {
              ...REQUEST_ID,
              'Cache-Control': {
                description: 'Always `no-store`.',
                schema: { type: 'string', const: 'no-store' },
              },
            },
          },
          ...problems([400, 401, 403, 404, 500, 503]),
        },
      },
    },
    '/programs/{programId}': {
      get: {
        operationId: 'getProgram',
        tags: ['Programs'],
        summary: 'Read a program',
        description:
          "The program of the key's issuer, in the key's mode: its name, status, pool and what is left of it (`pool` and `remaining` are null for a program without a pool). `tokensCount` (= `issued`: shares of reserved, offered and accepted grants) and `active` (= `status` is `active`) are the names a client written for the reference product reads. Another issuer's program answers exactly like one that does not exist (404); a key of the other mode is 403.",
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
                  tokensCount: 1250,
                  active: true,
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
          "Newest first, a page at a time: pass `nextCursor` back as `cursor` for the next page; the last page has `nextCursor: null`. With `recipient`, only that recipient's grants (the address is normalised as `recipient.email` is); with `status`, only grants in that state; a filtered page may hold fewer than `limit` grants, even none, and still have a `nextCursor`. Each grant is shown with its state, `rejectionReason`, `expiresAt` and `delivery`; its history is on its own GET. The same key rules as reading a grant.",
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
            name: 'status',
            in: 'query',
            required: false,
            description:
              'Only grants in this state. Like `recipient`, a filter: a page may hold fewer than `limit` grants, even none, and still have a `nextCursor`.',
            schema: { type: 'string', enum: [...GRANT_STATES] },
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
                  data: [
                    {
                      ...GRANT_EXAMPLE,
                      rejectionReason: null,
                      expiresAt: '2026-12-26T09:30:00.000Z',
                      delivery: 'sent',
                    },
                  ],
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
    '/recipient/offer': recipientRoute(
      'recipientOffer',
      "Open an offer link: the recipient's grants",
      "What the recipient's page shows for the link's token (from the link's fragment `#t=`, sent in the body so it reaches no URL or log): the grants this address holds at the link's issuer that are still open, with each program's description, terms and the fields identifying needs. Changes nothing (mail scanners open links). An unknown, used or expired token: 404 `offer_link_invalid`, one answer for all. Attempts are limited per token (429).",
      'RecipientOfferRequest',
      { status: '200', description: "The recipient's open grants.", ref: 'RecipientView' },
      [400, 404, 413, 415, 429, 500, 503],
    ),
    '/recipient/identify': recipientRoute(
      'recipientIdentify',
      'Identify for a grant',
      "The recipient's name, and the date of birth or country when the program's rules need them (400 names a missing one). Eligible: the grant becomes `offered`; not: `rejected` (`ineligible_age` or `ineligible_country`) and its shares go back. Only the result is kept (age at least N: yes/no; the country), never the date of birth. Identifying again once offered answers as it is.",
      'RecipientIdentifyRequest',
      { status: '200', description: 'The page after the change.', ref: 'RecipientView' },
      [400, 404, 409, 413, 415, 429, 500, 503],
    ),
    '/recipient/accept': recipientRoute(
      'recipientAccept',
      'Accept an offered grant',
      'Accepts the Terms of Virtual Shares at `termsVersion` (the version the page showed; another is 400) and the grant: `accepted`, final. Before identifying: 409 `offer_not_identified`; after the offer window: 409 `offer_expired`; already decided: 409 `grant_state_conflict` or `grant_accepted`.',
      'RecipientAcceptRequest',
      { status: '200', description: 'The page after the change.', ref: 'RecipientView' },
      [400, 404, 409, 413, 415, 429, 500, 503],
    ),
    '/recipient/decline': recipientRoute(
      'recipientDecline',
      'Decline a grant',
      'The grant becomes `rejected` (`declined`) and its shares go back to the pool.',
      'RecipientDeclineRequest',
      { status: '200', description: 'The page after the change.', ref: 'RecipientView' },
      [400, 404, 409, 413, 415, 429, 500, 503],
    ),
    '/recipient/links': recipientRoute(
      'recipientLinks',
      'Ask for a new link',
      "For every issuer with an open grant for this address, the newest one's offer e-mail is sent again with a new link (at most once per 10 minutes, and only while the grant holds fewer than 5 valid links, so asking never makes a link the recipient holds stop working). Always the same 202 and body, whatever the address holds, so it tells nobody which addresses hold offers: the request is queued before anything is read, and the look-up happens after the answer. Past the limit per address (5 an hour) nothing more is sent, and the answer is still the same.",
      'RecipientLinksRequest',
      { status: '202', description: 'Always this answer.', ref: 'LinksAnswer' },
      [400, 413, 415, 500, 503],
    ),
    '/manage/issuers/{issuerId}/grants/{grantId}': {
      get: {
        operationId: 'manageGetGrant',
        tags: ['Management'],
        summary: "A grant's page: its state and timeline (viewer)",
        description:
          "The grant as the management API shows it, with its history (the timeline) and who sent it. Another issuer's grant answers 404 like a missing one.",
        security: BEARER,
        parameters: IssuerGrantParameters,
        responses: {
          '200': ok('The grant.', 'ManagedGrant'),
          ...manageProblems([401, 403, 404, 500, 503]),
        },
      },
    },
    '/manage/issuers/{issuerId}/grants/{grantId}/cancel': manageGrantChange(
      'manageCancelGrant',
      'Cancel a grant (admin)',
      "As the integrator's cancel, by a member: audited (`grant.cancel`) in the same transaction. Idempotent; accepted is 409 `grant_accepted`.",
      [401, 403, 404, 409, 500, 503],
    ),
    '/manage/issuers/{issuerId}/grants/{grantId}/resend': manageGrantChange(
      'manageResendOffer',
      'Send the offer e-mail again (admin)',
      'Asks for the offer e-mail again (with a new link) for a grant still open; at most once per 10 minutes (429 `resend_too_soon` with `Retry-After`). Audited (`grant.resend`).',
      [401, 403, 404, 409, 429, 500, 503],
    ),
    '/manage/issuers/{issuerId}/grants/{grantId}/correct-email': manageGrantChange(
      'manageCorrectEmail',
      "Correct a grant's recipient address (admin)",
      'For a grant not yet decided: the address changes, every earlier link stops working, and the offer goes to the new address. Audited (`grant.correct_email`).',
      [400, 401, 403, 404, 409, 413, 415, 500, 503],
      'CorrectEmailRequest',
    ),
    '/manage/issuers/{issuerId}/programs/{programId}/offer-settings': {
      patch: {
        operationId: 'manageOfferSettings',
        tags: ['Management'],
        summary: "A program's offer settings (admin)",
        description:
          "The offer window (days, for grants made from now on), the minimum age, the allowed countries, the description and the Terms of Virtual Shares (text or link) a program's recipients see and must meet, and the pool-low threshold of its `program.pool_low` webhook event. `null` removes the age rule, the country rule, the description or the threshold; a change of the terms makes their next version. Audited (`program.offer_settings`).",
        security: BEARER,
        parameters: IssuerProgramParameters,
        requestBody: jsonBody('OfferSettingsRequest'),
        responses: {
          '200': ok('The program with its settings and counters.', 'ProgramView'),
          ...manageProblems([400, 401, 403, 404, 409, 413, 415, 500, 503]),
        },
      },
    },
    '/manage/issuers/{issuerId}/inbox': {
      get: {
        operationId: 'manageListInbox',
        tags: ['Management'],
        summary: 'The TEST inbox (viewer)',
        description:
          "The offer e-mails of the issuer's TEST grants as rendered, newest first, a page at a time; never handed to SES; kept 30 days.",
        security: BEARER,
        parameters: [
          { $ref: '#/components/parameters/IssuerId' },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description: 'The `nextCursor` of the previous page.',
            schema: { type: 'string' },
          },
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: 'Messages per page, 1 to 50 (default 10).',
            schema: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
          },
        ],
        responses: {
          '200': ok('A page of messages, newest first.', 'InboxList'),
          ...manageProblems([400, 401, 403, 404, 500, 503]),
        },
      },
    },
    '/manage/issuers/{issuerId}/programs/{programId}/offer-preview': {
      post: {
        operationId: 'manageOfferPreview',
        tags: ['Management'],
        summary: 'Preview the offer e-mail (viewer)',
        description:
          "The offer e-mail a grant with this body (the grant API's) would send, rendered by the mail's own renderer, its link a placeholder. Writes nothing.",
        security: BEARER,
        parameters: IssuerProgramParameters,
        requestBody: jsonBody('GrantRequest'),
        responses: {
          '200': ok('The rendered e-mail.', 'MailPreview'),
          ...manageProblems([400, 401, 403, 404, 413, 415, 500, 503]),
        },
      },
    },
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
            description:
              'The dry run, or a retried commit (the batch, `Idempotent-Replayed: true`).',
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
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description: 'The `nextCursor` of the previous page.',
            schema: { type: 'string' },
          },
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: `Batches per page, 1 to ${BATCH_PAGE.max} (default ${BATCH_PAGE.default}).`,
            schema: {
              type: 'integer',
              minimum: 1,
              maximum: BATCH_PAGE.max,
              default: BATCH_PAGE.default,
            },
          },
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
    ...webhookPaths,
    ...manageProgramsPaths,
    ...managePeoplePaths,
  },
  // What the service sends to an issuer's webhook endpoints (OpenAPI 3.1), one entry per kind.
  webhooks: webhooksSection,
  components: {
    securitySchemes: {
      apiKey: {
        type: 'apiKey',
        in: 'header',
        name: 'x-api-key',
        description: 'vs_test_... for TEST programs, vs_live_... for LIVE programs.',
      },
      bearer: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          "A Cognito access token of a member of the path's issuer (the console signs in for it); the route's role is checked on every request.",
      },
    },
    parameters: {
      IssuerId: {
        name: 'issuerId',
        in: 'path',
        required: true,
        description: 'The issuer (the company) the member acts for.',
        schema: { type: 'string', pattern: '^iss_[0-9a-z]{26}$' },
      },
      ProgramId: {
        name: 'programId',
        in: 'path',
        required: true,
        description: 'The program that issues the shares.',
        schema: { type: 'string', pattern: '^prg_[0-9a-z]{26}$' },
      },
      BatchId: {
        name: 'batchId',
        in: 'path',
        required: true,
        description: 'The batch id from the commit (also the last segment of its Location).',
        schema: { type: 'string', pattern: BATCH_ID.source },
      },
      GrantId: {
        name: 'grantId',
        in: 'path',
        required: true,
        description: 'The grant id from the 201 (also the last segment of its Location).',
        schema: { type: 'string', pattern: '^gr_[0-9a-z]{26}$' },
      },
      ...webhookParameters,
      ...manageProgramsParameters,
      ...managePeopleParameters,
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
          data: { type: 'array', items: { $ref: '#/components/schemas/GrantListItem' } },
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
      GrantListItem: grantLifeSchema(false),
      GrantDetail: grantLifeSchema(true),
      TestTransitionRequest: jsonSchema(TestTransitionBody, 'input'),
      Balance: BALANCE_SCHEMA,
      RecipientOfferRequest: jsonSchema(RecipientOfferBody, 'input'),
      RecipientIdentifyRequest: recipientIdentifySchema(),
      RecipientAcceptRequest: jsonSchema(RecipientAcceptBody, 'input'),
      RecipientDeclineRequest: jsonSchema(RecipientDeclineBody, 'input'),
      RecipientLinksRequest: withEmailFormat(jsonSchema(RecipientLinksBody, 'input')),
      RecipientGrant: RECIPIENT_GRANT,
      RecipientView: RECIPIENT_VIEW,
      LinksAnswer: {
        type: 'object',
        properties: { message: { type: 'string', const: LINKS_ANSWER.message } },
        required: ['message'],
        additionalProperties: false,
      },
      ManagedGrant: managedGrantSchema(),
      ManagedProgram: {
        type: 'object',
        description: 'The program as the management API shows it (docs/management-api.md).',
        properties: {
          id: { type: 'string', pattern: '^prg_[0-9a-z]{26}$' },
          mode: { type: 'string', enum: ['TEST', 'LIVE'] },
          name: { type: 'string' },
          status: { type: 'string', enum: ['active', 'paused', 'closed'] },
          offerDays: { type: 'integer', minimum: 1, maximum: 365 },
          minAge: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
          countries: {
            anyOf: [
              { type: 'array', items: { type: 'string', pattern: '^[A-Z]{2}$' } },
              { type: 'null' },
            ],
          },
          description: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          terms: {
            anyOf: [
              {
                type: 'object',
                properties: {
                  version: { type: 'integer', minimum: 1 },
                  text: { type: 'string' },
                  url: { type: 'string', format: 'uri' },
                },
                required: ['version'],
              },
              { type: 'null' },
            ],
          },
          poolLowThreshold: {
            anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }],
            description:
              'The `program.pool_low` webhook event fires once each time what is left falls to this many shares or fewer; null: never.',
          },
        },
        required: [
          'id',
          'mode',
          'name',
          'status',
          'offerDays',
          'minAge',
          'countries',
          'description',
          'terms',
          'poolLowThreshold',
        ],
      },
      CorrectEmailRequest: {
        type: 'object',
        properties: {
          email: { type: 'string', format: 'email', maxLength: LIMITS.maxEmailLength },
        },
        required: ['email'],
        additionalProperties: false,
      },
      OfferSettingsRequest: {
        type: 'object',
        properties: {
          offerDays: { type: 'integer', minimum: 1, maximum: 365 },
          minAge: { anyOf: [{ type: 'integer', minimum: 13, maximum: 120 }, { type: 'null' }] },
          countries: {
            anyOf: [
              { type: 'array', items: { type: 'string', pattern: '^[A-Z]{2}$' }, minItems: 1 },
              { type: 'null' },
            ],
          },
          description: { anyOf: [{ type: 'string', maxLength: 2000 }, { type: 'null' }] },
          terms: {
            oneOf: [
              {
                type: 'object',
                properties: { text: { type: 'string', maxLength: 20000 } },
                required: ['text'],
                additionalProperties: false,
              },
              {
                type: 'object',
                properties: { url: { type: 'string', format: 'uri', maxLength: 2000 } },
                required: ['url'],
                additionalProperties: false,
              },
            ],
          },
          poolLowThreshold: {
            anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }],
            description:
              'Shares left at which `program.pool_low` fires (once per crossing); null removes it.',
          },
        },
        additionalProperties: false,
      },
      InboxList: {
        type: 'object',
        properties: {
          object: { type: 'string', const: 'list' },
          data: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                grantId: { type: 'string', pattern: '^gr_[0-9a-z]{26}$' },
                to: { type: 'string', format: 'email' },
                subject: { type: 'string' },
                text: { type: 'string' },
                html: { type: 'string' },
                createdAt: { type: 'string', format: 'date-time' },
              },
              required: ['id', 'grantId', 'to', 'subject', 'text', 'html', 'createdAt'],
            },
          },
          nextCursor: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        },
        required: ['object', 'data', 'nextCursor'],
      },
      MailPreview: {
        type: 'object',
        properties: {
          subject: { type: 'string' },
          text: { type: 'string' },
          html: { type: 'string' },
        },
        required: ['subject', 'text', 'html'],
        additionalProperties: false,
      },
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
          mode: { type: 'string', enum: ['TEST', 'LIVE'] },
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
      GrantBatchList: {
        type: 'object',
        properties: {
          object: { type: 'string', const: 'list' },
          data: { type: 'array', items: { $ref: '#/components/schemas/GrantBatch' } },
          nextCursor: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        },
        required: ['object', 'data', 'nextCursor'],
        additionalProperties: false,
      },
      GatewayMessage: {
        type: 'object',
        description: "API Gateway's own answer (no x-request-id; its apigw-requestid header).",
        properties: { message: { type: 'string' } },
        required: ['message'],
      },
      ManageProblem: {
        ...jsonSchema(ProblemSchema, 'output'),
        properties: manageProblemProperties(),
      },
      ...webhookSchemas,
      ...manageProgramsSchemas,
      ...managePeopleSchemas,
    },
    responses: {
      ...Object.fromEntries(
        [...new Set(codes.map((code) => ERROR_CODES[code]))].map((status) => [
          `Problem${status}`,
          problemResponse(status),
        ]),
      ),
      ...Object.fromEntries(
        // The statuses the management routes above answer with (405 is not theirs; 422: a
        // batch's Idempotency-Key reused with another body).
        [400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503].map((status) => [
          `ManageProblem${status}`,
          problemResponse(status, true),
        ]),
      ),
    },
  },
})
