import { figuresPaths, figuresSchemas } from './openapi-figures'
import { grantLifeSchemas, grantSchemas } from './openapi-grant-schemas'
import { grantPaths } from './openapi-grants'
import { holdingsPaths, holdingsSchemas, holdingsSecuritySchemes } from './openapi-holdings'
import { keyLimitPaths, keyLimitSchemas } from './openapi-key-limits'
import { manageBatchPaths, manageBatchSchemas } from './openapi-manage-batches'
import { manageGrantPaths, manageGrantSchemas } from './openapi-manage-grants'
import { jsonSchema } from './openapi-parts'
import { MANAGE_PROBLEM_SCHEMAS, ProblemSchema, problemResponses } from './openapi-problems'
import { recipientPaths, recipientSchemas } from './openapi-recipients'
import { requestLogPaths, requestLogSchemas } from './openapi-requests'

export { GrantSchema, ProgramSchema } from './openapi-grant-schemas'
export { ProblemSchema } from './openapi-problems'

import { BATCH_ID } from '../functions/domain/batch'
import { LIMITS } from '../functions/domain/grant-request.schema'
import { manageGrantListPaths, manageGrantListSchemas } from './openapi-manage-grant-lists'
import {
  manageMemberParameters,
  manageMemberPaths,
  manageMemberSchemas,
} from './openapi-manage-members'
import {
  manageProgramsParameters,
  manageProgramsPaths,
  manageProgramsSchemas,
} from './openapi-manage-programs'
import { programValuePaths, programValueSchemas } from './openapi-values'
import { webhooksSection } from './openapi-webhook-events'
import { webhookParameters, webhookPaths, webhookSchemas } from './openapi-webhooks'

/** components: securitySchemes, parameters and headers, shared by every part. */
const SHARED_COMPONENTS = {
  securitySchemes: {
    ...holdingsSecuritySchemes,
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
    ...manageMemberParameters,
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
      description:
        "Id of this request (`req_` and 26 letters; `x-request-id` is the same id, for older clients); quote it when reporting a problem, or find the request in the console's request log.",
      schema: { type: 'string' },
    },
    RateLimitPolicy: {
      description:
        "The API key's rate limit (draft-ietf-httpapi-ratelimit-headers-11, a Structured Field List): `q` requests a second (`w=1`) across all instances, with bursts up to twice that. Sent on every answer of an integrator route for a known key.",
      schema: { type: 'string', example: '"key";q=25;w=1' },
    },
    RateLimit: {
      description:
        "What remains of the key's limit as the answering instance sees it: `r` requests, and `t` seconds until the burst is whole again. Sent with RateLimit-Policy.",
      schema: { type: 'string', example: '"key";r=42;t=1' },
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
}

/**
 * The OpenAPI 3.1 document of the API, generated from the zod schemas the handler validates
 * with and from the error catalogue. `npm run openapi` writes it to openapi.json; a test fails
 * when the checked-in file differs from what this produces.
 */
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
        "The management API, for the issuer's people (a Cognito access token of a member of the path's issuer; each route's role is checked on every request): programs and keys, members and the audit log, grants and their life, send to many (uploads, batches, their rows and results), offer settings and the TEST inbox, the request log. docs/management-api.md tells the rules behind them.",
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
    ...grantPaths,
    ...recipientPaths,
    ...holdingsPaths,
    ...manageGrantPaths,
    ...manageBatchPaths,
    ...webhookPaths,
    ...manageProgramsPaths,
    ...manageMemberPaths,
    ...manageGrantListPaths,
    ...figuresPaths,
    ...programValuePaths,
    ...requestLogPaths,
    ...keyLimitPaths,
  },
  // What the service sends to an issuer's webhook endpoints (OpenAPI 3.1), one entry per kind.
  webhooks: webhooksSection,
  components: {
    ...SHARED_COMPONENTS,
    schemas: {
      ...grantSchemas(),
      Problem: jsonSchema(ProblemSchema, 'output'),
      ...grantLifeSchemas(),
      ...recipientSchemas(),
      ...holdingsSchemas(),
      ...manageGrantSchemas(),
      ...manageBatchSchemas,
      ...MANAGE_PROBLEM_SCHEMAS,
      ...webhookSchemas,
      ...manageProgramsSchemas,
      ...manageMemberSchemas,
      ...manageGrantListSchemas,
      ...figuresSchemas,
      ...programValueSchemas,
      ...requestLogSchemas,
      ...keyLimitSchemas,
    },
    responses: {
      ...problemResponses(),
    },
  },
})
