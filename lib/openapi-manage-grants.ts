import { BATCH_ID } from '../functions/domain/batch'
import { LIMITS } from '../functions/domain/grant-request.schema'
import { OFFER_SETTINGS_FIELDS } from '../functions/domain/offer-settings'
import { REQUEST_ID_PATTERN } from '../functions/domain/request-id'
import { GRANT_LIFE_PROPERTIES, GrantSchema, HISTORY_ENTRY } from './openapi-grant-schemas'
import {
  BEARER,
  COUNTRY,
  ID,
  IssuerProgramParameters,
  jsonBody,
  jsonSchema,
  MODE,
  manageProblems,
  nullable,
  ok,
  pageParameter,
  query,
  termsSchema,
} from './openapi-parts'

/**
 * Part of openapi.json: a grant's life for the issuer's people (get, cancel, resend, correct the
 * address), a program's offer settings, the TEST inbox and the offer preview.
 */
/** A management answer whose full shape is the management API's (docs/management-api.md). */
const SENDER = {
  type: 'object',
  properties: { sub: { type: 'string' }, email: { type: 'string', format: 'email' } },
  required: ['sub', 'email'],
  additionalProperties: false,
}
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
    keyId: nullable(ID.apiKey),
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
    requestId: nullable({
      type: 'string',
      pattern: REQUEST_ID_PATTERN.source,
      description:
        'The grant API request that made it, in the request log (`GET /manage/issuers/{issuerId}/requests/{requestId}`); null for a console or batch grant, or one made before requests were logged.',
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
        country: COUNTRY,
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

const IssuerGrantParameters = [
  { $ref: '#/components/parameters/IssuerId' },
  { $ref: '#/components/parameters/GrantId' },
]

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

export const manageGrantPaths = {
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
        query('cursor', 'The `nextCursor` of the previous page.', { type: 'string' }),
        pageParameter('Messages', { default: 10, max: 50 }),
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
}

export const manageGrantSchemas = () => ({
  ManagedGrant: managedGrantSchema(),
  ManagedProgram: {
    type: 'object',
    description: 'The program as the management API shows it (docs/management-api.md).',
    properties: {
      id: ID.program,
      mode: MODE,
      name: { type: 'string' },
      status: { type: 'string', enum: ['active', 'paused', 'closed'] },
      offerDays: { type: 'integer', minimum: 1, maximum: 365 },
      minAge: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
      countries: {
        anyOf: [{ type: 'array', items: COUNTRY }, { type: 'null' }],
      },
      description: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      terms: nullable(termsSchema(1)),
      poolLowThreshold: {
        anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }],
        description:
          'The `program.pool_low` webhook event fires once each time what is left falls to this many shares or fewer; null: never.',
      },
    },
    required: ['id', 'mode', 'name', 'status', ...OFFER_SETTINGS_FIELDS],
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
        anyOf: [{ type: 'array', items: COUNTRY, minItems: 1 }, { type: 'null' }],
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
            grantId: ID.grant,
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
})
