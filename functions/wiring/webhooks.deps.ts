import { queueOf, type Runtime } from '../composition'
import { makeWebhookEndpoints, type WebhookEndpoints } from '../core/webhook-endpoints'
import type { WebhookRouteDeps } from '../http/webhook-routes'
import { type SecretBox, secretBoxIn } from '../runtime/secret-box'
import { DynamoDbAuditWriter } from '../stores/audit-writer.dynamodb'
import { DynamoDbWebhookStore, decodeMessageCursor } from '../stores/webhooks.dynamodb'
import { manageDeps } from './manage.deps'

/**
 * The webhook endpoint use cases over the runtime's webhooks table, built once per function; the
 * secret box and the queue only on first use, so a route that seals nothing needs no key and a
 * route that sends nothing no queue.
 */
export const webhookEndpointsOf = (runtime: Runtime): WebhookEndpoints => {
  const { documentClient, config, clock } = runtime
  const auditLog = new DynamoDbAuditWriter(documentClient, config.tables)
  let box: SecretBox | undefined
  return makeWebhookEndpoints({
    store: new DynamoDbWebhookStore(documentClient, config.tables),
    box: () => {
      // One box, so one KMS client per function (never per request), built on first use.
      box ??= secretBoxIn(config)
      return box
    },
    queue: () => queueOf(runtime, 'Webhooks'),
    audit: (entry, options) => auditLog.append(entry, options),
    clock: () => clock.now(),
    isCursor: (cursor) => decodeMessageCursor(cursor) !== undefined,
  })
}

/** What every webhook endpoint route (http/routes/manage/webhook-*.route.ts) runs on. */
export const webhooksDeps = (runtime: Runtime): WebhookRouteDeps => ({
  ...manageDeps(runtime),
  endpoints: webhookEndpointsOf(runtime),
  clock: () => runtime.clock.now(),
})
