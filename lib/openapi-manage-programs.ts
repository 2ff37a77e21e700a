import { CHECK_BOUND_MS } from '../functions/core/access-cache'
import { MAX_DURATION_MS, MAX_NAME_LENGTH, MAX_POOL } from '../functions/domain/admin-rules'
import { KEY_PATTERN, keyPrefix } from '../functions/domain/api-key'
import { DEFAULT_OFFER_DAYS } from '../functions/domain/grant-lifecycle'
import { idPattern } from '../functions/domain/ids'
import { BURST_FACTOR, DEFAULT_RATE_LIMITS, MAX_RATE_LIMIT } from '../functions/domain/rate-limit'
import { MANAGE_BODY_MAX_BYTES } from '../functions/http/manage-admin'
import {
  BEARER,
  jsonBody,
  MODE,
  manageAnswer,
  manageAnswers,
  manageProblems,
  schemaRef,
  TIME,
} from './openapi-parts'
import { TOKEN_VALUE_PROPERTIES, TOKEN_VALUE_REQUIRED } from './openapi-values'

/**
 * Part of openapi.json: the management routes of an issuer's programs and API keys (a Cognito
 * access token; functions/routes.ts ListPrograms, CreateProgram, GetProgram, Pause/Resume/
 * CloseProgram, ListKeys, CreateKey, RollKey, RevokeKey; UpdateKey is lib/openapi-key-limits.ts),
 * put in the document by lib/openapi.ts.
 * What each answers is functions/http/routes/manage/program-*.route.ts and key*.route.ts over
 * functions/core/admin.ts; test/manage/programs-keys.manage.test.ts holds real answers against it.
 */

type Json = Record<string, unknown>

const MAX_DURATION_DAYS = MAX_DURATION_MS / 86_400_000
const MODE_ANY_CASE = {
  type: 'string',
  pattern: '^([Tt][Ee][Ss][Tt]|[Ll][Ii][Vv][Ee])$',
  description: 'TEST or LIVE, in any case (answered upper-case).',
}
const answer = manageAnswer

const PROGRAM_ID = 'prg_0h7d3k9m2n4p6q8r1s3t5v7w9x'
const KEY_ID = 'key_0h7d3k9m2n4p6q8r1s3t5v7w9x'
const NEW_KEY_ID = 'key_5k2x9q8w7e6r5t4y3v2j1h0p9a'
/**
 * Not a key: it has the format (so the example is valid against the schema) but its checksum is
 * wrong, so the grant API refuses it without a read (functions/domain/api-key.ts, parseApiKey).
 */
const EXAMPLE_SECRET = `${keyPrefix('TEST')}EXAMPLE0NOT0A0REAL0KEY00000000`

const PROGRAM_EXAMPLE = {
  id: PROGRAM_ID,
  mode: 'TEST',
  name: 'Referrals',
  status: 'active',
  pool: 1000,
  issued: 120,
  remaining: 880,
  createdAt: '2026-11-26T09:30:00.000Z',
  offerDays: DEFAULT_OFFER_DAYS,
  minAge: null,
  countries: null,
  description: null,
  terms: null,
  poolLowThreshold: null,
  tokenValue: '12.50',
  tokenValueCurrency: 'EUR',
  tokenValueCalculatedDate: '2026-11-01',
}
export const KEY_EXAMPLE = {
  id: KEY_ID,
  mode: 'TEST',
  prefix: keyPrefix('TEST'),
  last4: EXAMPLE_SECRET.slice(-4),
  status: 'active',
  createdAt: '2026-11-26T09:30:00.000Z',
  createdBy: 'ann@example.com',
  expiresAt: null,
  rateLimit: DEFAULT_RATE_LIMITS.TEST,
  rateLimitIsDefault: true,
}

const IssuerParameter = { $ref: '#/components/parameters/IssuerId' }
const ProgramParameters = [IssuerParameter, { $ref: '#/components/parameters/ProgramId' }]
export const KeyParameters = [IssuerParameter, { $ref: '#/components/parameters/KeyId' }]
const modeFilter = (what: string) => ({
  name: 'mode',
  in: 'query',
  required: false,
  description: `TEST or LIVE (any case): only the ${what} of that mode. Any other query parameter is refused and named (\`400 validation_failed\`).`,
  schema: MODE_ANY_CASE,
})

// zod checks the body's shape first (manage-bodies.ts), then the use case every rule at once.
export const NAMED = `A body of the wrong shape (not an object; a field missing, of the wrong type or unknown) is \`400 validation_failed\` naming those fields; then every value that breaks a rule is named at once (\`errors\`). A body that is not JSON (or none) is \`400 malformed_json\`, another media type \`415\`, more than ${MANAGE_BODY_MAX_BYTES / 1024} KiB \`413\`.`
export const ADMIN_WRITE =
  'Admin or owner; a viewer is `403 forbidden`. Not a member of the issuer (or no such issuer): `404 issuer_not_found`. A refused request writes nothing. A change DynamoDB kept refusing because other transactions held its items (grants in flight, another change) is `409 request_conflict` with `Retry-After`, and nothing was written: send it again.'

/** A status change of a program, one route each (functions/http/program-status.ts). */
const programChange = (
  action: 'pause' | 'resume' | 'close',
  summary: string,
  what: string,
  refused: string,
) => ({
  post: {
    operationId: `manage${action[0]?.toUpperCase()}${action.slice(1)}Program`,
    tags: ['Management'],
    summary,
    description: `${what} ${refused} No body is read. The change and its audit entry (\`program.${action}\`, from and to) are one transaction. Another issuer's program, an unknown or a malformed id: \`404 program_not_found\`. ${ADMIN_WRITE}`,
    security: BEARER,
    parameters: ProgramParameters,
    responses: {
      '200': answer('The program after the change.', 'ProgramView', {
        ...PROGRAM_EXAMPLE,
        status: action === 'pause' ? 'paused' : action === 'resume' ? 'active' : 'closed',
      }),
      ...manageProblems([401, 403, 404, 409, 500, 503]),
    },
  },
})

/** Paths of these routes, keyed as in openapi.json. */
export const manageProgramsPaths: Record<string, Json> = {
  '/manage/issuers/{issuerId}/programs': {
    get: {
      operationId: 'manageListPrograms',
      tags: ['Management'],
      summary: "The issuer's programs (viewer)",
      description:
        "Every program of the issuer, oldest first, each with its counters as the table holds them now (`issued`, and `remaining` of a limited pool) and its offer settings; `mode` keeps one mode. Any member may read it. Not a member of the issuer (or no such issuer): `404 issuer_not_found`. Read through the issuer's index: a program created a moment ago may show a moment later.",
      security: BEARER,
      parameters: [IssuerParameter, modeFilter('programs')],
      responses: {
        '200': answer('The programs, oldest first.', 'ProgramList', {
          programs: [PROGRAM_EXAMPLE],
        }),
        ...manageProblems([400, 401, 403, 404, 500, 503]),
      },
    },
    post: {
      operationId: 'manageCreateProgram',
      tags: ['Management'],
      summary: 'Create a program (admin)',
      description: `A new program of the issuer, \`active\`, in its mode for good, with the default offer settings (an offer window of ${DEFAULT_OFFER_DAYS} days, no age or country rule, no terms; set them with \`PATCH .../offer-settings\`). \`name\` is trimmed; \`pool\` absent or null: no limit. ${NAMED} The program and its audit entry (\`program.create\`: mode, name, pool) are one transaction. ${ADMIN_WRITE}`,
      security: BEARER,
      parameters: [IssuerParameter],
      requestBody: jsonBody('ProgramCreateRequest', {
        name: 'Referrals',
        mode: 'TEST',
        pool: 1000,
      }),
      responses: {
        '201': answer(
          'The program as it was stored.',
          'ProgramView',
          { ...PROGRAM_EXAMPLE, issued: 0, remaining: 1000 },
          {
            Location: {
              description: 'The path of the program (`GET` it there).',
              required: true,
              schema: {
                type: 'string',
                example: `/manage/issuers/{issuerId}/programs/${PROGRAM_ID}`,
              },
            },
          },
        ),
        ...manageProblems([400, 401, 403, 404, 409, 413, 415, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/programs/{programId}': {
    get: {
      operationId: 'manageGetProgram',
      tags: ['Management'],
      summary: 'A program (viewer)',
      description:
        "The program with its counters read now (strongly consistent) and its offer settings. Any member may read it. Another issuer's program, an unknown or a malformed id: `404 program_not_found`, the same answer; not a member of the issuer: `404 issuer_not_found`.",
      security: BEARER,
      parameters: ProgramParameters,
      responses: {
        '200': answer('The program.', 'ProgramView', PROGRAM_EXAMPLE),
        ...manageProblems([401, 403, 404, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/programs/{programId}/pause': programChange(
    'pause',
    'Pause a program (admin)',
    `An active program becomes \`paused\`: the grant API, the console's send and send to many refuse its new grants (\`409 program_inactive\`) on every request that arrives ${CHECK_BOUND_MS / 1000} s after the change or later; grants already made keep their course.`,
    'A program that is not active (paused, or closed) is `409 program_state_conflict`, and nothing is written.',
  ),
  '/manage/issuers/{issuerId}/programs/{programId}/resume': programChange(
    'resume',
    'Resume a paused program (admin)',
    'A paused program becomes `active` again: it takes grants.',
    'A program that is not paused (active, or closed) is `409 program_state_conflict`, and nothing is written.',
  ),
  '/manage/issuers/{issuerId}/programs/{programId}/close': programChange(
    'close',
    'Close a program for good (admin)',
    `An active or paused program becomes \`closed\`, which is final: it never takes a grant again (\`409 program_inactive\` from ${CHECK_BOUND_MS / 1000} s after the change) and cannot be paused, resumed or closed again.`,
    'A closed program is `409 program_state_conflict` ("closing is final"), and nothing is written.',
  ),
  '/manage/issuers/{issuerId}/keys': {
    get: {
      operationId: 'manageListKeys',
      tags: ['Management'],
      summary: "The issuer's API keys (viewer)",
      description:
        'Every key of the issuer, oldest first: its id, mode, prefix and last 4 characters, status (`expired` once its expiry has passed), who created it and when, its expiry. Never the secret or its hash, and no "last used" (it would add a write to every grant). `mode` keeps one mode. Any member may read it. Not a member of the issuer: `404 issuer_not_found`. Read through the issuer\'s index: a key created a moment ago may show a moment later.',
      security: BEARER,
      parameters: [IssuerParameter, modeFilter('keys')],
      responses: manageAnswers('The keys, oldest first.', 'ApiKeyList', { keys: [KEY_EXAMPLE] }),
    },
    post: {
      operationId: 'manageCreateKey',
      tags: ['Management'],
      summary: 'Create an API key (admin)',
      description: `A new key of the mode for the grant API's \`x-api-key\`, working at once. **The answer holds its secret (\`${keyPrefix('TEST')}...\` or \`${keyPrefix('LIVE')}...\`): the only time it is ever shown.** Only its SHA-256 is stored, so it cannot be shown again; keep it in a secret store (lost: roll the key). \`expiresIn\` (\`90d\`, \`24h\`, \`30m\`, \`45s\`, at most ${MAX_DURATION_DAYS}d) sets an expiry; absent or null: none. ${NAMED} The key and its audit entry (\`key.create\`: mode, expiry; never the secret) are one transaction. ${ADMIN_WRITE}`,
      security: BEARER,
      parameters: [IssuerParameter],
      requestBody: jsonBody('ApiKeyCreateRequest', { mode: 'TEST', expiresIn: '90d' }),
      responses: {
        '201': answer('The key, with its secret shown this once.', 'CreatedApiKey', {
          ...KEY_EXAMPLE,
          expiresAt: '2027-02-24T09:30:00.000Z',
          secret: EXAMPLE_SECRET,
        }),
        ...manageProblems([400, 401, 403, 404, 409, 413, 415, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/keys/{keyId}/roll': {
    post: {
      operationId: 'manageRollKey',
      tags: ['Management'],
      summary: 'Roll an API key: a new secret, the old one for a grace period (admin)',
      description: `A new key of the same mode, with the old key's expiry, working at once. **The answer holds the new secret: the only time it is ever shown** (only its SHA-256 is stored). The old key keeps working for \`grace\` (default \`24h\`; \`0\`: it stops now, within ${CHECK_BOUND_MS / 1000} s), never later than it would have expired anyway; \`old\` shows its new expiry. No body, \`{}\` and \`{"grace": null}\` mean the default; a body that is there is a JSON object (\`400 validation_failed\` naming \`grace\` or an unknown field, \`400 malformed_json\`, \`415\` for another media type, \`413\` past ${MANAGE_BODY_MAX_BYTES / 1024} KiB). Only an active key can be rolled: a revoked or expired one is \`409 key_state_conflict\`, and nothing is written. The new key, the old one's new expiry and the audit entry (\`key.roll\`: the new key id, the old one's expiry) are one transaction. Another issuer's key, an unknown or a malformed id: \`404 key_not_found\`. ${ADMIN_WRITE}`,
      security: BEARER,
      parameters: KeyParameters,
      requestBody: {
        required: false,
        content: {
          'application/json': {
            schema: schemaRef('ApiKeyRollRequest'),
            example: { grace: '1h' },
          },
        },
      },
      responses: {
        '201': answer(
          'The new key with its secret shown this once, and the old key.',
          'ApiKeyRolled',
          {
            ...KEY_EXAMPLE,
            id: NEW_KEY_ID,
            createdAt: '2026-11-27T08:00:00.000Z',
            secret: EXAMPLE_SECRET,
            old: { ...KEY_EXAMPLE, expiresAt: '2026-11-27T09:00:00.000Z' },
          },
        ),
        ...manageProblems([400, 401, 403, 404, 409, 413, 415, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/keys/{keyId}/revoke': {
    post: {
      operationId: 'manageRevokeKey',
      tags: ['Management'],
      summary: 'Revoke an API key (admin)',
      description: `The key becomes \`revoked\` for good: the grant API refuses it (\`401 invalid_api_key\`) on every request that arrives ${CHECK_BOUND_MS / 1000} s after the change or later. Revoking a revoked key answers the key and writes nothing. No body is read. The change and its audit entry (\`key.revoke\`) are one transaction. Another issuer's key, an unknown or a malformed id: \`404 key_not_found\`. ${ADMIN_WRITE}`,
      security: BEARER,
      parameters: KeyParameters,
      responses: {
        '200': answer('The key, revoked.', 'ApiKey', { ...KEY_EXAMPLE, status: 'revoked' }),
        ...manageProblems([401, 403, 404, 409, 500, 503]),
      },
    },
  },
}

const KEY_PROPERTIES = {
  id: { type: 'string', pattern: idPattern('apiKey').source },
  mode: MODE,
  prefix: {
    type: 'string',
    enum: [keyPrefix('TEST'), keyPrefix('LIVE')],
    description: "The secret's first characters: its mode.",
  },
  last4: {
    type: 'string',
    pattern: '^[0-9A-Za-z]{4}$',
    description: "The secret's last 4 characters, to tell keys apart.",
  },
  status: {
    type: 'string',
    enum: ['active', 'revoked', 'expired'],
    description: '`expired`: its `expiresAt` has passed (a rolled key, once its grace is over).',
  },
  createdAt: TIME,
  createdBy: {
    anyOf: [{ type: 'string' }, { type: 'null' }],
    description:
      "Who created it: the member's e-mail, or the operator CLI's label; null for keys made before it was recorded.",
  },
  expiresAt: {
    anyOf: [TIME, { type: 'null' }],
    description: 'When the grant API stops taking it; null: never.',
  },
  rateLimit: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_RATE_LIMIT,
    description: `Requests a second the integrator API takes with this key (burst: ${BURST_FACTOR} times that); its \`RateLimit-Policy\` field's \`q\`. The mode's default (TEST ${DEFAULT_RATE_LIMITS.TEST}, LIVE ${DEFAULT_RATE_LIMITS.LIVE}) unless set (\`PATCH .../keys/{keyId}\`).`,
  },
  rateLimitIsDefault: {
    type: 'boolean',
    description: "`true`: `rateLimit` is the mode's default, no limit of the key's own.",
  },
}
const KEY_REQUIRED = Object.keys(KEY_PROPERTIES)
const SECRET = {
  type: 'string',
  pattern: KEY_PATTERN.source,
  description:
    'The key for `x-api-key`: shown in this answer only, stored nowhere (only its SHA-256). Its last 6 characters are a checksum, so a mistyped key is refused without a read.',
}
const DURATION = (zero: boolean) => ({
  type: 'string',
  pattern: zero ? '^(0|[0-9]{1,6}[smhd])$' : '^[0-9]{1,6}[smhd]$',
  description: `${zero ? '`0` (none) or a' : 'A'} duration from 1s to ${MAX_DURATION_DAYS}d: a whole number and s, m, h or d.`,
})

/** Component schemas these routes use, by name. */
export const manageProgramsSchemas: Record<string, Json> = {
  ProgramView: {
    description:
      'A program as the management API shows it (functions/http/manage-admin.ts, programResource): its offer settings (ManagedProgram) and its counters. Every field is always present.',
    allOf: [
      schemaRef('ManagedProgram'),
      {
        type: 'object',
        properties: {
          pool: {
            anyOf: [{ type: 'integer', minimum: 1, maximum: MAX_POOL }, { type: 'null' }],
            description: 'Shares the program may grant in all; null: no limit.',
          },
          issued: {
            type: 'integer',
            minimum: 0,
            description:
              'Shares its grants hold now: a grant canceled, rejected or expired gives its shares back to the pool.',
          },
          remaining: {
            anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }],
            description: '`pool` minus `issued`; null: no limit.',
          },
          createdAt: TIME,
          // The value of a share (issue 32, lib/openapi-values.ts).
          ...TOKEN_VALUE_PROPERTIES,
        },
        required: ['pool', 'issued', 'remaining', 'createdAt', ...TOKEN_VALUE_REQUIRED],
      },
    ],
    unevaluatedProperties: false,
  },
  ProgramList: {
    type: 'object',
    properties: { programs: { type: 'array', items: schemaRef('ProgramView') } },
    required: ['programs'],
    additionalProperties: false,
  },
  ProgramCreateRequest: {
    type: 'object',
    properties: {
      name: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_NAME_LENGTH,
        description: `Trimmed, then 1 to ${MAX_NAME_LENGTH} characters: not blank, no control or bidirectional control characters.`,
      },
      mode: MODE_ANY_CASE,
      pool: {
        anyOf: [{ type: 'integer', minimum: 1, maximum: MAX_POOL }, { type: 'null' }],
        description: 'Shares the program may grant in all; absent or null: no limit.',
      },
    },
    required: ['name', 'mode'],
    additionalProperties: false,
  },
  ApiKey: {
    type: 'object',
    description: 'An API key as the management API shows it: never its secret or its hash.',
    properties: KEY_PROPERTIES,
    required: KEY_REQUIRED,
    additionalProperties: false,
  },
  ApiKeyList: {
    type: 'object',
    properties: { keys: { type: 'array', items: schemaRef('ApiKey') } },
    required: ['keys'],
    additionalProperties: false,
  },
  CreatedApiKey: {
    type: 'object',
    description: 'The new key and its secret, shown only in this answer.',
    properties: { ...KEY_PROPERTIES, secret: SECRET },
    required: [...KEY_REQUIRED, 'secret'],
    additionalProperties: false,
  },
  ApiKeyRolled: {
    type: 'object',
    description:
      'The new key and its secret, shown only in this answer, and the old key with its new expiry.',
    properties: {
      ...KEY_PROPERTIES,
      secret: SECRET,
      old: {
        ...schemaRef('ApiKey'),
        description:
          'The key that was rolled: `expiresAt` is the end of its grace period (`expired` at once with `grace` 0).',
      },
    },
    required: [...KEY_REQUIRED, 'secret', 'old'],
    additionalProperties: false,
  },
  ApiKeyCreateRequest: {
    type: 'object',
    properties: {
      mode: MODE_ANY_CASE,
      expiresIn: {
        anyOf: [DURATION(false), { type: 'null' }],
        description: 'How long the key works, like `90d`; absent or null: no expiry.',
      },
    },
    required: ['mode'],
    additionalProperties: false,
  },
  ApiKeyRollRequest: {
    type: 'object',
    properties: {
      grace: {
        anyOf: [DURATION(true), { type: 'null' }],
        description:
          'How long the old key keeps working, like `1h`; `0`: it stops now; absent or null: `24h`.',
      },
    },
    additionalProperties: false,
  },
}

/** Component parameters these routes use, by name. */
export const manageProgramsParameters: Record<string, Json> = {
  KeyId: {
    name: 'keyId',
    in: 'path',
    required: true,
    description: 'The key id (`id` in its answers and the key list).',
    schema: { type: 'string', pattern: idPattern('apiKey').source },
  },
}
