import type { SQSBatchResponse, SQSEvent } from 'aws-lambda'
import type { WebhookQueueMessage } from '../domain/webhooks'
import { logger } from '../runtime/logger'
import { deliverySteps } from './webhook-delivery'
import { eventSteps } from './webhook-fan-out'
import { parseWebhookQueueMessage } from './webhook-queue-message.schema'
import { senderContext, type WebhookSenderDeps } from './webhook-sender-context'

/**
 * The WebhookSender consumer (functions/consumers.ts; docs/webhooks.md): the Webhooks queue's
 * three kinds of message (domain/webhooks.ts WebhookQueueMessage).
 *
 * - `event` (from GrantStream, or this consumer's own pool check): one message item per endpoint
 *   of the issuer in the event's mode that is enabled and subscribes to the kind (id derived from
 *   the event and the endpoint, so a repeated event makes no second message), and one `delivery`
 *   per new message. A repeated event whose message has no attempt yet sends its delivery again
 *   (the first send may have been lost): at least once, never a second message.
 * - `delivery`: one attempt. Before its `notBefore` it is put back with a delay (SQS delays at most
 *   900 s, so a long wait is several hops). An automatic attempt runs only if the message still
 *   expects it (pending, with this very `nextAttemptAt`): a delivery received twice, or overtaken
 *   by a replay, does nothing. It signs afresh (`webhook-timestamp` = the real time of this
 *   attempt, whatever the injected clock says) with the endpoint's live secrets, posts with the
 *   SSRF-safe client, then schedules the next attempt (as a new message) BEFORE recording this
 *   one: if the record fails, this delivery comes back and runs again, and the early next delivery
 *   finds another `nextAttemptAt` and does nothing. 2xx: delivered. 410: the endpoint is disabled
 *   (`gone`) at once. Else the retry schedule (nextAttemptDelay, Retry-After honoured); spent:
 *   the message is failed. An endpoint whose every attempt failed for 5 days is disabled
 *   (`failing`) and the issuer's owners e-mailed, once.
 * - `replay`: a page (100) of an endpoint's messages since a time, oldest first: a `replay`
 *   delivery each, then the next page as another `replay` message.
 *
 * program.pool_low: on a grant's creation (shares taken) and on its rejection, expiry or cancel
 * (shares back), when an endpoint of the issuer in that mode wants program.pool_low: one snapshot
 * of the program's head and shards; at or under the head's `poolLowThreshold` the pool-low mark
 * is put (once per crossing), and its event fanned out as any other; above it, the mark is
 * cleared so the next crossing fires again.
 *
 * A disabled or deleted endpoint gets nothing: a delivery due for it marks its message `failed`
 * (no attempt is recorded); a replay after re-enabling sends it again.
 */

export {
  ENDPOINTS_TTL_MS,
  type PoolSnapshot,
  REPLAY_PAGE,
  type WebhookSenderDeps,
  type WebhookSenderStore,
} from './webhook-sender-context'

export const makeWebhookSender = (deps: WebhookSenderDeps) => {
  const context = senderContext(deps)
  const { fanOut, checkPool, replay } = eventSteps(context)
  const deliver = deliverySteps(context)

  const handle = async (message: WebhookQueueMessage) => {
    switch (message.kind) {
      case 'event': {
        const fanned = await fanOut(message.event)
        const pool = await checkPool(message.event)
        return { ...fanned, ...(pool === undefined ? {} : { pool }) }
      }
      case 'delivery':
        return { outcome: await deliver(message) }
      case 'replay':
        return await replay(message)
    }
  }

  /**
   * The SQS handler: the batch's messages side by side (a delivery may wait up to 15 s for its
   * receiver), each failure reported alone (partial batch response): only those come back.
   */
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failures: SQSBatchResponse['batchItemFailures'] = []
    await Promise.all(
      event.Records.map(async (record) => {
        const message = parseWebhookQueueMessage(record.body)
        if (message === undefined) {
          logger.error('Webhooks message of an unknown shape', { messageId: record.messageId })
          failures.push({ itemIdentifier: record.messageId })
          return
        }
        try {
          const outcome = await handle(message)
          logger.debug('Webhooks message', { kind: message.kind, ...outcome })
        } catch (error) {
          logger.warn('Webhooks message failed; it comes back', {
            kind: message.kind,
            error: error instanceof Error ? error.name : 'unknown',
          })
          failures.push({ itemIdentifier: record.messageId })
        }
      }),
    )
    return { batchItemFailures: failures }
  }
}
