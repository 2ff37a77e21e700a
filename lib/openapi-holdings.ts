import { GRANT_STATES, REJECTION_REASONS } from '../functions/domain/grant-lifecycle'
import { HOLDINGS_CSV_COLUMNS, HOLDINGS_IDLE_MINUTES } from '../functions/domain/holdings'
import * as bodies from '../functions/domain/recipient-request.schema'
import * as parts from './openapi-parts'
import { recipientPaths } from './openapi-recipients'

const { ID, jsonBody, jsonContent, jsonSchema, MODE, nullable, problems, schemaRef } = parts

/**
 * Part of openapi.json: the recipient's holdings (issue 32, docs/decisions/holdings-sign-in.md):
 * the sign-in link, the session, the holdings and their statement, and the offer page's steps
 * taken with a session instead of a link token.
 */

const NO_STORE_HEADER = {
  'Cache-Control': {
    description: "Always `no-store`: the answer holds the recipient's own grants.",
    schema: { type: 'string', const: 'no-store' },
  },
}

/** `Authorization: Bearer <session>`: the holdings session (components/securitySchemes). */
const SESSION = [{ holdingsSession: [] }]

export const holdingsSecuritySchemes = {
  holdingsSession: {
    type: 'http',
    scheme: 'bearer',
    description: `A holdings session from \`POST /recipient/holdings/session\` (256 random bits; only its hash is kept). It ends after ${HOLDINGS_IDLE_MINUTES} minutes without use, and on sign-out.`,
  },
}

const NULLABLE_STRING = { anyOf: [{ type: 'string' }, { type: 'null' }] }

const HOLDINGS_GRANT = {
  type: 'object',
  properties: {
    grantId: ID.grant,
    status: { type: 'string', enum: [...GRANT_STATES] },
    amount: { type: 'integer', minimum: 1 },
    reason: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    expiresAt: { type: 'string', format: 'date-time', description: 'The end of the offer window.' },
    rejectionReason: {
      anyOf: [{ type: 'string', enum: [...REJECTION_REASONS] }, { type: 'null' }],
    },
    acceptance: nullable({
      type: 'object',
      description: 'The terms version accepted, and when.',
      properties: { termsVersion: { type: 'integer', minimum: 0 }, at: parts.TIME },
      required: ['termsVersion', 'at'],
      additionalProperties: false,
    }),
    offer: {
      description:
        'A grant still open (reserved or offered, within its window): what the offer page shows of it, to identify, accept or decline it; else null.',
      anyOf: [schemaRef('RecipientGrant'), { type: 'null' }],
    },
  },
  required: [
    'grantId',
    'status',
    'amount',
    'reason',
    'createdAt',
    'expiresAt',
    'rejectionReason',
    'acceptance',
    'offer',
  ],
  additionalProperties: false,
}

const HOLDINGS_PROGRAM = {
  type: 'object',
  properties: {
    programId: ID.program,
    name: { type: 'string' },
    description: NULLABLE_STRING,
    tokenValue: {
      description: 'The value of one share (a decimal string, exact), or null when none is set.',
      anyOf: [{ type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' }, { type: 'null' }],
    },
    tokenValueCurrency: { description: 'ISO 4217.', ...NULLABLE_STRING },
    tokenValueCalculatedDate: {
      description: 'The date the value was calculated (as of).',
      ...NULLABLE_STRING,
    },
    accepted: { type: 'integer', minimum: 0, description: 'Shares of accepted grants.' },
    acceptedValue: {
      description: 'accepted × tokenValue, exact (a decimal string); null without a value.',
      ...NULLABLE_STRING,
    },
    pending: { type: 'integer', minimum: 0, description: 'Shares of reserved and offered grants.' },
    grants: { type: 'array', items: schemaRef('HoldingsGrant'), description: 'Newest first.' },
  },
  required: [
    'programId',
    'name',
    'description',
    'tokenValue',
    'tokenValueCurrency',
    'tokenValueCalculatedDate',
    'accepted',
    'acceptedValue',
    'pending',
    'grants',
  ],
  additionalProperties: false,
}

const HOLDINGS = {
  type: 'object',
  properties: {
    object: { type: 'string', const: 'holdings' },
    email: { type: 'string', format: 'email' },
    mode: MODE,
    issuers: {
      type: 'array',
      description: 'By name; each with its programs by name.',
      items: {
        type: 'object',
        properties: {
          issuerId: ID.issuer,
          name: { type: 'string' },
          programs: { type: 'array', items: schemaRef('HoldingsProgram') },
        },
        required: ['issuerId', 'name', 'programs'],
        additionalProperties: false,
      },
    },
  },
  required: ['object', 'email', 'mode', 'issuers'],
  additionalProperties: false,
}

const answered = (status: string, description: string, content?: Record<string, unknown>) => ({
  [status]: {
    description,
    headers: { ...parts.REQUEST_ID, ...NO_STORE_HEADER },
    ...(content === undefined ? {} : { content }),
  },
})

/** The offer page's step, also taken from the holdings page with a session instead of a token. */
const withSession = (
  path: '/recipient/identify' | '/recipient/accept' | '/recipient/decline',
  sessionBody: string,
) => {
  const { post } = recipientPaths[path]
  const linkBody = post.requestBody.content['application/json'].schema
  return {
    post: {
      ...post,
      description: `${post.description} From the holdings page: \`Authorization: Bearer <session>\` and the same body without \`token\`; the grant must be addressed to the session's address in its mode (and issuer, for TEST), else 404 \`grant_not_found\` as for an unknown grant. An ended session: 401 \`session_expired\`.`,
      security: [{}, ...SESSION],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { oneOf: [linkBody, schemaRef(sessionBody)] } } },
      },
      responses: { ...post.responses, ...problems([401]) },
    },
  }
}

export const holdingsPaths = {
  '/recipient/holdings/link': {
    post: {
      operationId: 'recipientHoldingsLink',
      tags: ['Recipients'],
      summary: 'Ask for a sign-in link to the holdings',
      description:
        "Mails a sign-in link (`<console>/holdings#<token>`, 15 minutes, used once) for this address's grants: LIVE grants, one e-mail through SES whose session spans every issuer; TEST grants, one message in each issuer's TEST inbox whose session shows that issuer's TEST grants only. Always the same 202 and body, whatever the address holds: the request is queued before anything is read. An address without grants gets no mail. Past the limit per address (5 an hour) nothing more is sent, and the answer is still the same.",
      security: [],
      requestBody: jsonBody('HoldingsLinkRequest'),
      responses: {
        ...answered('202', 'Always this answer.', jsonContent('HoldingsLinkAnswer')),
        ...problems([400, 413, 415, 500, 503]),
      },
    },
  },
  '/recipient/holdings/session': {
    post: {
      operationId: 'recipientHoldingsSession',
      tags: ['Recipients'],
      summary: 'Sign in with a link: a holdings session',
      description:
        "The link's token (from its fragment) for a session; the token is deleted in the same conditional write that makes the session, so it works once. Unknown, used or expired: 410 `link_expired`, one answer for all. Attempts are limited per token (429).",
      security: [],
      requestBody: jsonBody('HoldingsSessionRequest'),
      responses: {
        ...answered('201', 'The session.', jsonContent('HoldingsSession')),
        ...problems([400, 410, 413, 415, 429, 500, 503]),
      },
    },
    delete: {
      operationId: 'recipientHoldingsSignOut',
      tags: ['Recipients'],
      summary: 'Sign out',
      description: 'Ends the session (deleted). Unknown or ended: 401 `session_expired`.',
      security: SESSION,
      responses: {
        '204': { description: 'Signed out.', headers: { ...parts.REQUEST_ID, ...NO_STORE_HEADER } },
        ...problems([401, 500, 503]),
      },
    },
  },
  '/recipient/holdings': {
    get: {
      operationId: 'recipientHoldings',
      tags: ['Recipients'],
      summary: "The recipient's holdings, or their statement (CSV)",
      description: `Every grant addressed to the session's address in its mode (TEST: one issuer's), grouped by issuer and program, newest first, with the accepted shares' value at the program's current value (exact decimals). Each use moves the session's idle end on. With \`Accept: text/csv\`, the statement: one row per grant, columns ${HOLDINGS_CSV_COLUMNS.map((c) => `\`${c}\``).join(', ')}, every cell quoted and formula-safe; \`accepted_value\` on accepted grants only.`,
      security: SESSION,
      responses: {
        ...answered('200', 'The holdings.', {
          ...jsonContent('Holdings'),
          'text/csv': { schema: { type: 'string' } },
        }),
        ...problems([401, 500, 503]),
      },
    },
  },
  '/recipient/identify': withSession('/recipient/identify', 'HoldingsIdentifyRequest'),
  '/recipient/accept': withSession('/recipient/accept', 'HoldingsAcceptRequest'),
  '/recipient/decline': withSession('/recipient/decline', 'HoldingsDeclineRequest'),
}

export const holdingsSchemas = () => ({
  HoldingsLinkRequest: jsonSchema(bodies.RecipientLinksBody, 'input'),
  HoldingsLinkAnswer: {
    type: 'object',
    properties: { object: { type: 'string', const: bodies.HOLDINGS_LINK_ANSWER.object } },
    required: ['object'],
    additionalProperties: false,
  },
  HoldingsSessionRequest: jsonSchema(bodies.RecipientOfferBody, 'input'),
  HoldingsSession: {
    type: 'object',
    properties: {
      object: { type: 'string', const: 'holdings_session' },
      session: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
      mode: MODE,
      idleMinutes: { type: 'integer', const: HOLDINGS_IDLE_MINUTES },
      expiresAt: { type: 'string', format: 'date-time', description: 'Moved on by each use.' },
    },
    required: ['object', 'session', 'mode', 'idleMinutes', 'expiresAt'],
    additionalProperties: false,
  },
  Holdings: HOLDINGS,
  HoldingsProgram: HOLDINGS_PROGRAM,
  HoldingsGrant: HOLDINGS_GRANT,
  HoldingsIdentifyRequest: jsonSchema(
    bodies.holdingsIdentifyBody(() => 0),
    'input',
  ),
  HoldingsAcceptRequest: jsonSchema(bodies.HoldingsAcceptBody, 'input'),
  HoldingsDeclineRequest: jsonSchema(bodies.HoldingsDeclineBody, 'input'),
})
