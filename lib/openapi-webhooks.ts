import { WEBHOOK_MESSAGE_PAGE } from '../functions/core/webhook-endpoints'
import {
  WEBHOOK_ENDPOINT_ID,
  WEBHOOK_EVENT_KINDS,
  WEBHOOK_LIMITS,
  WEBHOOK_MESSAGE_ID,
  WEBHOOK_TEST_KIND,
} from '../functions/domain/webhooks'
import { URL_VALUE_MASK } from '../functions/http/webhook-view'
import {
  BEARER,
  jsonBody,
  MODE,
  manageAnswer,
  manageAnswers,
  manageProblems,
  pageParameter,
  query,
  REQUEST_ID,
  schemaRef,
  TIME,
} from './openapi-parts'
import { PAYLOAD_KINDS, webhookEventSchemas } from './openapi-webhook-events'

/**
 * The webhook endpoints' part of openapi.json (issue 21): the management routes of an issuer's
 * endpoints and their schemas, with the payloads' schemas (lib/openapi-webhook-events.ts, which
 * also builds the `webhooks` section). lib/openapi.ts puts them in the document.
 */

type Json = Record<string, unknown>
const answer = manageAnswer

const ENDPOINT_ID = 'we_5k2x7q6w7e6r5t4y3v2j4h3p5a'
const MESSAGE_ID = 'msg_01a21730bdc0m7bkrklnhrg5kn4j3vfb'
const ENDPOINT_EXAMPLE = {
  endpointId: ENDPOINT_ID,
  mode: 'TEST',
  url: 'https://hooks.example.com/virtual-shares',
  description: 'Our CRM',
  kinds: ['grant.accepted', 'grant.rejected'],
  enabled: true,
  createdAt: '2026-11-26T09:30:00.000Z',
  updatedAt: '2026-11-26T09:30:00.000Z',
}

const EndpointParameters = [
  { $ref: '#/components/parameters/IssuerId' },
  { $ref: '#/components/parameters/WebhookEndpointId' },
]

const KINDS_TEXT = WEBHOOK_EVENT_KINDS.map((k) => `\`${k}\``).join(', ')
const MASKED_URL_TEXT = `To a viewer, each query value of the URL shows as \`${URL_VALUE_MASK}\` (\`?token=${URL_VALUE_MASK}\`): a query may carry the receiver's token; owners and admins see it whole.`

export const webhookParameters = {
  WebhookEndpointId: {
    name: 'endpointId',
    in: 'path',
    required: true,
    description: 'The endpoint id from its creation.',
    schema: { type: 'string', pattern: WEBHOOK_ENDPOINT_ID.source },
  },
  WebhookMessageId: {
    name: 'messageId',
    in: 'path',
    required: true,
    description: 'The message id (its `webhook-id` header) from the delivery log.',
    schema: { type: 'string', pattern: WEBHOOK_MESSAGE_ID.source },
  },
}

export const webhookPaths = {
  '/manage/issuers/{issuerId}/webhook-endpoints': {
    get: {
      operationId: 'manageListWebhookEndpoints',
      tags: ['Webhooks'],
      summary: "The issuer's webhook endpoints (viewer)",
      description: `Every endpoint of the issuer, oldest first, never with a secret; \`mode\` keeps one mode. ${MASKED_URL_TEXT}`,
      security: BEARER,
      parameters: [
        { $ref: '#/components/parameters/IssuerId' },
        {
          name: 'mode',
          in: 'query',
          required: false,
          description: 'TEST or LIVE: only the endpoints of that mode.',
          schema: MODE,
        },
      ],
      responses: manageAnswers('The endpoints.', 'WebhookEndpointList', {
        endpoints: [ENDPOINT_EXAMPLE],
      }),
    },
    post: {
      operationId: 'manageCreateWebhookEndpoint',
      tags: ['Webhooks'],
      summary: 'Add a webhook endpoint (admin)',
      description: `An endpoint receives the event kinds it lists (${KINDS_TEXT}) of the issuer's programs in its mode only: TEST events never reach a LIVE endpoint. The URL is absolute, \`http\` or \`https\` (\`https\` only for LIVE), without a user name or password, at most ${WEBHOOK_LIMITS.urlMaxLength} characters. At most ${WEBHOOK_LIMITS.endpointsPerMode} endpoints per mode (\`409 webhook_endpoint_limit\`). The answer holds the signing secret (\`whsec_...\`): the only time it is shown; it is stored sealed. Audited (\`webhook.create\`, the URL's host only).`,
      security: BEARER,
      parameters: [{ $ref: '#/components/parameters/IssuerId' }],
      requestBody: jsonBody('WebhookEndpointCreateRequest', {
        url: 'https://hooks.example.com/virtual-shares',
        mode: 'TEST',
        kinds: ['grant.accepted', 'grant.rejected'],
        description: 'Our CRM',
      }),
      responses: {
        '201': answer(
          'The endpoint, with its signing secret shown this once.',
          'WebhookEndpointWithSecret',
        ),
        ...manageProblems([400, 401, 403, 404, 409, 413, 415, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/webhook-endpoints/{endpointId}': {
    get: {
      operationId: 'manageGetWebhookEndpoint',
      tags: ['Webhooks'],
      summary: 'A webhook endpoint (viewer)',
      description: `The endpoint, never its secret. ${MASKED_URL_TEXT} Another issuer's answers \`404 webhook_endpoint_not_found\` like a missing one.`,
      security: BEARER,
      parameters: EndpointParameters,
      responses: {
        '200': answer('The endpoint.', 'WebhookEndpoint', ENDPOINT_EXAMPLE),
        ...manageProblems([401, 403, 404, 500, 503]),
      },
    },
    patch: {
      operationId: 'manageUpdateWebhookEndpoint',
      tags: ['Webhooks'],
      summary: 'Change a webhook endpoint (admin)',
      description:
        'Its URL (a LIVE endpoint stays `https`), event kinds, description (`null` removes it) or `enabled`. Enabling clears why it was disabled (`disabledReason`, `disabledAt`, `failingSince`); disabling is `manual`. Audited (`webhook.update`).',
      security: BEARER,
      parameters: EndpointParameters,
      requestBody: jsonBody('WebhookEndpointUpdateRequest', { enabled: false }),
      responses: {
        '200': answer('The endpoint after the change.', 'WebhookEndpoint'),
        ...manageProblems([400, 401, 403, 404, 409, 413, 415, 500, 503]),
      },
    },
    delete: {
      operationId: 'manageDeleteWebhookEndpoint',
      tags: ['Webhooks'],
      summary: 'Delete a webhook endpoint (admin)',
      description:
        "No delivery is made to it any more; its delivery log goes with the log's 30 days. Audited (`webhook.delete`).",
      security: BEARER,
      parameters: EndpointParameters,
      responses: {
        '204': { description: 'Deleted.', headers: REQUEST_ID },
        ...manageProblems([401, 403, 404, 409, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/rotate-secret': {
    post: {
      operationId: 'manageRotateWebhookSecret',
      tags: ['Webhooks'],
      summary: 'Rotate the signing secret (admin)',
      description: `A new secret, shown this once. The previous one keeps signing beside it (two space-separated signatures) for ${WEBHOOK_LIMITS.rotationOverlapHours} hours, until \`previousSecretExpiresAt\`: switch the receiver within that time. Audited (\`webhook.rotate\`, never a secret).`,
      security: BEARER,
      parameters: EndpointParameters,
      responses: {
        '200': answer(
          'The endpoint, with its new secret shown this once.',
          'WebhookEndpointWithSecret',
        ),
        ...manageProblems([401, 403, 404, 409, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/test': {
    post: {
      operationId: 'manageSendTestWebhook',
      tags: ['Webhooks'],
      summary: 'Send a test event (admin)',
      description: `A \`${WEBHOOK_TEST_KIND}\` message in the endpoint's delivery log, delivered, signed and retried as any other. A disabled endpoint answers \`409 webhook_endpoint_disabled\`. Audited (\`webhook.test\`).`,
      security: BEARER,
      parameters: EndpointParameters,
      responses: {
        '202': answer('The message, queued for delivery.', 'WebhookMessageAccepted', {
          messageId: MESSAGE_ID,
        }),
        ...manageProblems([401, 403, 404, 409, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/messages': {
    get: {
      operationId: 'manageListWebhookMessages',
      tags: ['Webhooks'],
      summary: "The endpoint's delivery log (viewer)",
      description: `Its messages of the last ${WEBHOOK_LIMITS.keepDays} days, newest first, a page at a time, each with its payload and every attempt: time, HTTP status or error, latency and the start of the response (${WEBHOOK_LIMITS.responseKeptChars} characters).`,
      security: BEARER,
      parameters: [
        ...EndpointParameters,
        pageParameter('Messages', WEBHOOK_MESSAGE_PAGE),
        query('cursor', 'The `next` of the previous page.', { type: 'string' }),
      ],
      responses: manageAnswers('A page of messages, newest first.', 'WebhookMessageList'),
    },
  },
  '/manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/messages/{messageId}/replay': {
    post: {
      operationId: 'manageReplayWebhookMessage',
      tags: ['Webhooks'],
      summary: 'Send one message again (admin)',
      description:
        'With the same `webhook-id` (receivers de-duplicate on it), signed afresh. A disabled endpoint answers `409 webhook_endpoint_disabled`. Audited (`webhook.replay`).',
      security: BEARER,
      parameters: [...EndpointParameters, { $ref: '#/components/parameters/WebhookMessageId' }],
      responses: {
        '202': answer('Queued for delivery.', 'WebhookMessageAccepted', { messageId: MESSAGE_ID }),
        ...manageProblems([401, 403, 404, 409, 500, 503]),
      },
    },
  },
  '/manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/replay': {
    post: {
      operationId: 'manageReplayWebhookMessages',
      tags: ['Webhooks'],
      summary: 'Send every message since a time again (admin)',
      description: `Every message of the endpoint created at or after \`since\` (a time in the past), sent again in the background, each with its own \`webhook-id\`. The log keeps ${WEBHOOK_LIMITS.keepDays} days: an earlier \`since\` starts ${WEBHOOK_LIMITS.keepDays} days ago, and the answer's \`since\` is the start used. Audited (\`webhook.replay\`).`,
      security: BEARER,
      parameters: EndpointParameters,
      requestBody: jsonBody('WebhookReplayRequest', { since: '2026-11-26T09:00:00Z' }),
      responses: {
        '202': answer('The replay, queued.', 'WebhookReplayAccepted', {
          since: '2026-11-26T09:00:00.000Z',
        }),
        ...manageProblems([400, 401, 403, 404, 409, 413, 415, 500, 503]),
      },
    },
  },
}

const ENDPOINT_PROPERTIES = {
  endpointId: { type: 'string', pattern: WEBHOOK_ENDPOINT_ID.source },
  mode: MODE,
  url: { type: 'string', format: 'uri', maxLength: WEBHOOK_LIMITS.urlMaxLength },
  description: { type: 'string', maxLength: WEBHOOK_LIMITS.descriptionMaxLength },
  kinds: {
    type: 'array',
    minItems: 1,
    uniqueItems: true,
    items: { type: 'string', enum: [...WEBHOOK_EVENT_KINDS] },
  },
  enabled: { type: 'boolean' },
  disabledReason: {
    type: 'string',
    enum: ['manual', 'gone', 'failing'],
    description: `\`manual\`: a person; \`gone\`: the receiver answered 410; \`failing\`: every attempt failed for ${WEBHOOK_LIMITS.disableAfterFailingDays} days (the owners were e-mailed).`,
  },
  disabledAt: TIME,
  failingSince: { ...TIME, description: 'The first failed attempt since the last success.' },
  lastSuccessAt: TIME,
  createdAt: TIME,
  updatedAt: TIME,
  secretRotatedAt: { ...TIME, description: 'When the current secret was made by a rotation.' },
  previousSecretExpiresAt: {
    ...TIME,
    description: 'Until then the previous secret signs beside the current one.',
  },
}
const ENDPOINT_REQUIRED = [
  'endpointId',
  'mode',
  'url',
  'kinds',
  'enabled',
  'createdAt',
  'updatedAt',
]

export const webhookSchemas: Record<string, Json> = {
  WebhookEndpoint: {
    type: 'object',
    description: 'A webhook endpoint; never its secret.',
    properties: {
      ...ENDPOINT_PROPERTIES,
      url: { ...ENDPOINT_PROPERTIES.url, description: MASKED_URL_TEXT },
    },
    required: ENDPOINT_REQUIRED,
    additionalProperties: false,
  },
  WebhookEndpointWithSecret: {
    type: 'object',
    description: 'The endpoint and its signing secret, shown only in this answer.',
    properties: {
      ...ENDPOINT_PROPERTIES,
      secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$' },
    },
    required: [...ENDPOINT_REQUIRED, 'secret'],
    additionalProperties: false,
  },
  WebhookEndpointList: {
    type: 'object',
    properties: { endpoints: { type: 'array', items: schemaRef('WebhookEndpoint') } },
    required: ['endpoints'],
    additionalProperties: false,
  },
  WebhookEndpointCreateRequest: {
    type: 'object',
    properties: {
      url: ENDPOINT_PROPERTIES.url,
      mode: MODE,
      kinds: ENDPOINT_PROPERTIES.kinds,
      description: {
        anyOf: [ENDPOINT_PROPERTIES.description, { type: 'null' }],
      },
    },
    required: ['url', 'mode', 'kinds'],
    additionalProperties: false,
  },
  WebhookEndpointUpdateRequest: {
    type: 'object',
    minProperties: 1,
    properties: {
      url: ENDPOINT_PROPERTIES.url,
      kinds: ENDPOINT_PROPERTIES.kinds,
      enabled: { type: 'boolean' },
      description: {
        anyOf: [ENDPOINT_PROPERTIES.description, { type: 'null' }],
        description: '`null` removes it.',
      },
    },
    additionalProperties: false,
  },
  WebhookAttempt: {
    type: 'object',
    properties: {
      at: { ...TIME, description: 'When it started: also its `webhook-timestamp`.' },
      status: { type: 'integer', description: 'The HTTP status, when an answer came.' },
      error: {
        type: 'string',
        description:
          'Why no usable answer: `timeout`, `connection`, `refused_address` (a private address), `redirect`, `tls`, `dns`.',
      },
      latencyMs: { type: 'integer', minimum: 0 },
      response: {
        type: 'string',
        maxLength: WEBHOOK_LIMITS.responseKeptChars,
        description: 'The start of the response body.',
      },
      trigger: { type: 'string', enum: ['auto', 'replay', 'test'] },
    },
    required: ['at', 'latencyMs', 'trigger'],
    additionalProperties: false,
  },
  WebhookMessage: {
    type: 'object',
    properties: {
      messageId: { type: 'string', pattern: WEBHOOK_MESSAGE_ID.source },
      eventId: { type: 'string' },
      type: { type: 'string', enum: [...PAYLOAD_KINDS] },
      status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
      createdAt: TIME,
      nextAttemptAt: TIME,
      payload: { ...schemaRef('WebhookPayload'), description: 'The body as sent.' },
      attempts: { type: 'array', items: schemaRef('WebhookAttempt') },
    },
    required: ['messageId', 'eventId', 'type', 'status', 'createdAt', 'payload', 'attempts'],
    additionalProperties: false,
  },
  WebhookMessageList: {
    type: 'object',
    properties: {
      messages: { type: 'array', items: schemaRef('WebhookMessage') },
      next: {
        type: 'string',
        description: 'Pass as `cursor` for the next page; absent on the last.',
      },
    },
    required: ['messages'],
    additionalProperties: false,
  },
  WebhookMessageAccepted: {
    type: 'object',
    properties: { messageId: { type: 'string', pattern: WEBHOOK_MESSAGE_ID.source } },
    required: ['messageId'],
    additionalProperties: false,
  },
  WebhookReplayRequest: {
    type: 'object',
    properties: { since: { ...TIME, description: 'A time in the past.' } },
    required: ['since'],
    additionalProperties: false,
  },
  WebhookReplayAccepted: {
    type: 'object',
    properties: {
      since: {
        ...TIME,
        description: `The start used: the time asked, or ${WEBHOOK_LIMITS.keepDays} days ago (what the log keeps) if that is later.`,
      },
    },
    required: ['since'],
    additionalProperties: false,
  },
  ...webhookEventSchemas,
}
