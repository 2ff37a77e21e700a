import type { Route } from './route'

/**
 * An issuer's webhook endpoints (core/webhook-endpoints.ts, stores/webhooks.dynamodb.ts): one
 * partition of endpoints per issuer, one of messages per endpoint; a test or replay is delivered
 * by the sender (WebhookSender). Why each action: docs/decisions/route-access.md#webhooks.
 */
export const MANAGE_WEBHOOK_ROUTES = [
  {
    id: 'ListWebhookEndpoints',
    routeKey: 'GET /manage/issuers/{issuerId}/webhook-endpoints',
    entry: 'functions/handlers/manage/webhook-endpoints-list.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: { memberships: ['dynamodb:GetItem'], webhooks: ['dynamodb:Query'] },
  },
  {
    // Counted per mode against the limit in the same transaction; the new secret sealed by KMS.
    id: 'CreateWebhookEndpoint',
    routeKey: 'POST /manage/issuers/{issuerId}/webhook-endpoints',
    entry: 'functions/handlers/manage/webhook-endpoint-create.handler.ts',
    auth: 'user',
    role: 'admin',
    kms: 'encrypt',
    access: {
      memberships: ['dynamodb:GetItem'],
      webhooks: ['dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    id: 'GetWebhookEndpoint',
    routeKey: 'GET /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}',
    entry: 'functions/handlers/manage/webhook-endpoint-get.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: { memberships: ['dynamodb:GetItem'], webhooks: ['dynamodb:GetItem'] },
  },
  {
    // The next version, on condition of the version read.
    id: 'UpdateWebhookEndpoint',
    routeKey: 'PATCH /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}',
    entry: 'functions/handlers/manage/webhook-endpoint-update.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      webhooks: ['dynamodb:GetItem', 'dynamodb:PutItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // Deleted with the mode's count in one transaction.
    id: 'DeleteWebhookEndpoint',
    routeKey: 'DELETE /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}',
    entry: 'functions/handlers/manage/webhook-endpoint-delete.handler.ts',
    auth: 'user',
    role: 'admin',
    access: {
      memberships: ['dynamodb:GetItem'],
      webhooks: ['dynamodb:GetItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // As UpdateWebhookEndpoint, with a new secret sealed with the KMS key.
    id: 'RotateWebhookSecret',
    routeKey: 'POST /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/rotate-secret',
    entry: 'functions/handlers/manage/webhook-secret-rotate.handler.ts',
    auth: 'user',
    role: 'admin',
    kms: 'encrypt',
    access: {
      memberships: ['dynamodb:GetItem'],
      webhooks: ['dynamodb:GetItem', 'dynamodb:PutItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // No secret is opened here: the sender signs.
    id: 'SendTestWebhook',
    routeKey: 'POST /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/test',
    entry: 'functions/handlers/manage/webhook-test-send.handler.ts',
    auth: 'user',
    role: 'admin',
    sends: ['Webhooks'],
    access: {
      memberships: ['dynamodb:GetItem'],
      webhooks: ['dynamodb:GetItem', 'dynamodb:PutItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    id: 'ListWebhookMessages',
    routeKey: 'GET /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/messages',
    entry: 'functions/handlers/manage/webhook-messages-list.handler.ts',
    auth: 'user',
    role: 'viewer',
    access: { memberships: ['dynamodb:GetItem'], webhooks: ['dynamodb:GetItem', 'dynamodb:Query'] },
  },
  {
    id: 'ReplayWebhookMessage',
    routeKey:
      'POST /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/messages/{messageId}/replay',
    entry: 'functions/handlers/manage/webhook-message-replay.handler.ts',
    auth: 'user',
    role: 'admin',
    sends: ['Webhooks'],
    access: {
      memberships: ['dynamodb:GetItem'],
      webhooks: ['dynamodb:GetItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
  {
    // One `replay` message onto the queue: the sender pages through the messages since then.
    id: 'ReplayWebhookMessages',
    routeKey: 'POST /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/replay',
    entry: 'functions/handlers/manage/webhook-messages-replay.handler.ts',
    auth: 'user',
    role: 'admin',
    sends: ['Webhooks'],
    access: {
      memberships: ['dynamodb:GetItem'],
      webhooks: ['dynamodb:GetItem'],
      audit: ['dynamodb:PutItem'],
    },
  },
] as const satisfies readonly Route[]
