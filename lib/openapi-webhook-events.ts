import { GRANT_STATES, REJECTION_REASONS } from '../functions/domain/grant-lifecycle'
import { idPattern } from '../functions/domain/ids'
import {
  WEBHOOK_ENDPOINT_ID,
  WEBHOOK_EVENT_KINDS,
  WEBHOOK_LIMITS,
  WEBHOOK_MESSAGE_ID,
  WEBHOOK_TEST_KIND,
  type WebhookPayloadType,
} from '../functions/domain/webhooks'
import { ID, jsonBody, MODE, schemaRef, TIME } from './openapi-parts'
import { TOKEN_VALUE_PROPERTIES } from './openapi-values'

/**
 * Part of openapi.json: the OpenAPI 3.1 `webhooks` section (issue 21): what a receiver gets, one
 * entry per event kind, its payload and data schema, the Standard Webhooks headers, the answers it
 * should give. The endpoints' management routes are lib/openapi-webhooks.ts.
 */

type Json = Record<string, unknown>

const GRANT_DATA = {
  type: 'object',
  description:
    "A grant's ids, state, amount, program, mode and time, and the address the integrator gave: nothing the recipient added (no date of birth, no country). Fetch details with `GET /programs/{programId}/grants/{grantId}`.",
  properties: {
    grantId: ID.grant,
    programId: ID.program,
    mode: MODE,
    state: { type: 'string', enum: [...GRANT_STATES] },
    amount: { type: 'integer', minimum: 1 },
    recipient: {
      type: 'object',
      properties: { email: { type: 'string', format: 'email' } },
      required: ['email'],
    },
    rejectionReason: {
      type: 'string',
      enum: [...REJECTION_REASONS],
      description: '`grant.rejected` only.',
    },
    deliveryFailure: {
      type: 'string',
      enum: ['bounced', 'complained', 'failed'],
      description: '`grant.delivery_failed` only.',
    },
    createdAt: TIME,
  },
  required: ['grantId', 'programId', 'mode', 'state', 'amount', 'recipient', 'createdAt'],
}
const BATCH_DATA = {
  type: 'object',
  properties: {
    batchId: { type: 'string' },
    programId: ID.program,
    mode: MODE,
    status: {
      type: 'string',
      enum: ['done', 'canceled'],
      description: '`done`: every row was tried; `canceled`: an issuer stopped it.',
    },
    counts: {
      type: 'object',
      properties: {
        total: { type: 'integer', minimum: 0 },
        granted: { type: 'integer', minimum: 0 },
        failed: { type: 'integer', minimum: 0 },
        canceled: { type: 'integer', minimum: 0 },
      },
      required: ['total', 'granted', 'failed', 'canceled'],
    },
  },
  required: ['batchId', 'programId', 'mode', 'status', 'counts'],
}
const POOL_LOW_DATA = {
  type: 'object',
  description:
    "Sent once each time what is left of a program's pool falls to its `poolLowThreshold` or below (set in the program's offer settings).",
  properties: {
    programId: ID.program,
    mode: MODE,
    pool: { type: 'integer', minimum: 1 },
    remaining: { type: 'integer', minimum: 0, description: 'What the pool held when it crossed.' },
    threshold: { type: 'integer', minimum: 1 },
  },
  required: ['programId', 'mode', 'pool', 'remaining', 'threshold'],
}
const VALUE_DATA = {
  type: 'object',
  description:
    "A value of the program's share was set (`POST /manage/issuers/{issuerId}/programs/{programId}/values`), under the names `GET /programs/{programId}` uses. `current`: whether it became the program's value (false for an entry dated before the current one). Never who set it.",
  properties: {
    programId: ID.program,
    mode: MODE,
    valueId: { type: 'string', pattern: idPattern('value').source },
    tokenValue: {
      ...TOKEN_VALUE_PROPERTIES.tokenValue.anyOf[0],
      description: 'The amount per share.',
    },
    tokenValueCurrency: TOKEN_VALUE_PROPERTIES.tokenValueCurrency.anyOf[0],
    tokenValueCalculatedDate: { type: 'string', format: 'date' },
    method: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    current: { type: 'boolean' },
    setAt: TIME,
  },
  required: [
    'programId',
    'mode',
    'valueId',
    'tokenValue',
    'tokenValueCurrency',
    'tokenValueCalculatedDate',
    'method',
    'current',
    'setAt',
  ],
}
const TEST_DATA = {
  type: 'object',
  properties: {
    endpointId: { type: 'string', pattern: WEBHOOK_ENDPOINT_ID.source },
    message: { type: 'string' },
  },
  required: ['endpointId', 'message'],
}

const dataSchemaOf = (kind: WebhookPayloadType) =>
  kind === 'batch.completed'
    ? 'WebhookBatchData'
    : kind === 'program.pool_low'
      ? 'WebhookPoolLowData'
      : kind === 'program.value_changed'
        ? 'WebhookProgramValueData'
        : kind === WEBHOOK_TEST_KIND
          ? 'WebhookTestData'
          : 'WebhookGrantData'

const payloadName = (kind: WebhookPayloadType) =>
  `WebhookPayload${kind
    .split(/[._]/)
    .map((part) => `${part[0]?.toUpperCase()}${part.slice(1)}`)
    .join('')}`

export const PAYLOAD_KINDS: readonly WebhookPayloadType[] = [
  ...WEBHOOK_EVENT_KINDS,
  WEBHOOK_TEST_KIND,
]

/** The payloads' schemas: each kind's data, any payload, and one payload per kind. */
export const webhookEventSchemas: Record<string, Json> = {
  WebhookGrantData: GRANT_DATA,
  WebhookBatchData: BATCH_DATA,
  WebhookPoolLowData: POOL_LOW_DATA,
  WebhookProgramValueData: VALUE_DATA,
  WebhookTestData: TEST_DATA,
  WebhookPayload: {
    description: 'Any webhook payload.',
    oneOf: PAYLOAD_KINDS.map((kind) => schemaRef(payloadName(kind))),
  },
  ...Object.fromEntries(
    PAYLOAD_KINDS.map((kind) => [
      payloadName(kind),
      {
        type: 'object',
        description: `The body of a \`${kind}\` delivery. Fixed at v1: fields may be added, never removed or changed.`,
        properties: {
          type: { type: 'string', const: kind },
          timestamp: {
            ...TIME,
            description: "When the change happened (the attempt's time is `webhook-timestamp`).",
          },
          data: schemaRef(dataSchemaOf(kind)),
        },
        required: ['type', 'timestamp', 'data'],
      },
    ]),
  ),
}

const DESCRIPTIONS: Record<WebhookPayloadType, string> = {
  'grant.created': 'A grant was made (by the API, the console or send to many).',
  'grant.offered':
    'The recipient identified and was found eligible: the offer is theirs to accept (state `offered`).',
  'grant.accepted': 'The recipient accepted the shares.',
  'grant.rejected': 'The recipient declined, or was not eligible (`rejectionReason`).',
  'grant.expired': 'The offer ended unaccepted.',
  'grant.canceled': 'The issuer or the integrator canceled the grant.',
  'grant.delivery_failed': 'The offer e-mail bounced, was marked as spam, or could not be sent.',
  'batch.completed': 'A send-to-many batch finished (`done`) or was canceled (`canceled`).',
  'program.pool_low': "What is left of a program's pool fell to its `poolLowThreshold`.",
  'program.value_changed':
    "A value of a program's share was set (`current`: it is the program's value now).",
  'webhook.test': 'A test event, sent from the console or `POST .../test`.',
}

const HEADERS = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description:
      'The message id: the same on every retry and replay of a message. De-duplicate on it (delivery is at least once, in no promised order).',
    schema: { type: 'string', pattern: WEBHOOK_MESSAGE_ID.source },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description:
      "The attempt's time, whole seconds since the epoch, signed afresh on every attempt. Refuse a timestamp more than 5 minutes from your clock.",
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the `whsec_` secret; space-separated, one per live secret (two during a rotation). Accept if any matches (the `standardwebhooks` packages do this).',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
]

/** OpenAPI 3.1's `webhooks`: what the service POSTs to an endpoint, one entry per kind. */
export const webhooksSection = Object.fromEntries(
  PAYLOAD_KINDS.map((kind) => [
    kind,
    {
      post: {
        operationId: `webhook${payloadName(kind).slice('WebhookPayload'.length)}`,
        tags: ['Webhooks'],
        summary: kind,
        description: `${DESCRIPTIONS[kind]} ${kind === WEBHOOK_TEST_KIND ? 'Sent to the one endpoint it was asked for, whatever kinds it lists.' : `Sent to each enabled endpoint of the issuer in the event's mode that lists \`${kind}\`.`} Answer 2xx within ${WEBHOOK_LIMITS.timeoutMs / 1000} s; anything else (or no answer, or a redirect: none is followed) is retried with backoff for about 3 days (\`Retry-After\` on 429 and 503 is honoured).`,
        security: [],
        parameters: HEADERS,
        requestBody: jsonBody(payloadName(kind)),
        responses: {
          '2XX': { description: 'Received: the message is delivered and not sent again.' },
          '410': {
            description:
              'Gone: the endpoint is disabled at once; no more deliveries until an admin enables it.',
          },
          default: {
            description:
              'Any other answer, a timeout or a connection error: the attempt failed and is retried.',
          },
        },
      },
    },
  ]),
)
