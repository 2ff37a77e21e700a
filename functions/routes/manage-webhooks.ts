import { AUDIT, MEMBER, type Route, userRoute } from './route'

/**
 * An issuer's webhook endpoints (core/webhook-endpoints.ts, stores/webhooks.dynamodb.ts): one
 * partition of endpoints per issuer, one of messages per endpoint; a test or replay is delivered
 * by the sender (WebhookSender). Why each action: docs/decisions/route-access.md#webhooks.
 */

const ENDPOINTS = '/manage/issuers/{issuerId}/webhook-endpoints'
const ENDPOINT = `${ENDPOINTS}/{endpointId}`
// The endpoint's next version, on condition of the version read, with its audit entry.
const NEW_VERSION = {
  memberships: MEMBER,
  webhooks: ['dynamodb:GetItem', 'dynamodb:PutItem'],
  audit: AUDIT,
} as const
// The audit entry, then the delivery onto the Webhooks queue.
const REPLAY = {
  role: 'admin',
  sends: ['Webhooks'],
  access: { memberships: MEMBER, webhooks: ['dynamodb:GetItem'], audit: AUDIT },
} as const

export const MANAGE_WEBHOOK_ROUTES = [
  userRoute('ListWebhookEndpoints', `GET ${ENDPOINTS}`, 'webhook-endpoints-list', {
    role: 'viewer',
    access: { memberships: MEMBER, webhooks: ['dynamodb:Query'] },
  }),
  // Counted per mode against the limit in the same transaction; the new secret sealed by KMS.
  userRoute('CreateWebhookEndpoint', `POST ${ENDPOINTS}`, 'webhook-endpoint-create', {
    role: 'admin',
    kms: 'encrypt',
    access: {
      memberships: MEMBER,
      webhooks: ['dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      audit: AUDIT,
    },
  }),
  userRoute('GetWebhookEndpoint', `GET ${ENDPOINT}`, 'webhook-endpoint-get', {
    role: 'viewer',
    access: { memberships: MEMBER, webhooks: ['dynamodb:GetItem'] },
  }),
  userRoute('UpdateWebhookEndpoint', `PATCH ${ENDPOINT}`, 'webhook-endpoint-update', {
    role: 'admin',
    access: NEW_VERSION,
  }),
  // Deleted with the mode's count in one transaction.
  userRoute('DeleteWebhookEndpoint', `DELETE ${ENDPOINT}`, 'webhook-endpoint-delete', {
    role: 'admin',
    access: {
      memberships: MEMBER,
      webhooks: ['dynamodb:GetItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
      audit: AUDIT,
    },
  }),
  // As UpdateWebhookEndpoint, with a new secret sealed with the KMS key.
  userRoute('RotateWebhookSecret', `POST ${ENDPOINT}/rotate-secret`, 'webhook-secret-rotate', {
    role: 'admin',
    kms: 'encrypt',
    access: NEW_VERSION,
  }),
  // No secret is opened here: the sender signs.
  userRoute('SendTestWebhook', `POST ${ENDPOINT}/test`, 'webhook-test-send', {
    role: 'admin',
    sends: ['Webhooks'],
    access: NEW_VERSION,
  }),
  userRoute('ListWebhookMessages', `GET ${ENDPOINT}/messages`, 'webhook-messages-list', {
    role: 'viewer',
    access: { memberships: MEMBER, webhooks: ['dynamodb:GetItem', 'dynamodb:Query'] },
  }),
  userRoute(
    'ReplayWebhookMessage',
    `POST ${ENDPOINT}/messages/{messageId}/replay`,
    'webhook-message-replay',
    REPLAY,
  ),
  // One `replay` message: the sender pages through the messages since then.
  userRoute('ReplayWebhookMessages', `POST ${ENDPOINT}/replay`, 'webhook-messages-replay', REPLAY),
] as const satisfies readonly Route[]
