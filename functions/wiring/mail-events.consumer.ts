import type { SNSEvent } from 'aws-lambda'
import type { Runtime } from '../composition'
import { makeGrantLife } from '../core/grant-life'
import { type MailEvents, makeMailEvents } from '../core/mail-events'
import { logger } from '../runtime/logger'
import { DynamoDbGrantLifeStore } from '../stores/grant-life.dynamodb'

/**
 * The SNS handler over the use case: each record's message is an SES event document. A document
 * that is not JSON is logged and dropped (SES publishes only JSON; retrying cannot fix it); a
 * grant that could not be written throws, so Lambda retries the invocation (the trigger's
 * retryAttempts), then sends it to the dead letters.
 */
export const mailEventsSnsHandler = (events: MailEvents) => async (event: SNSEvent) => {
  for (const record of event.Records) {
    let document: unknown
    try {
      document = JSON.parse(record.Sns.Message)
    } catch {
      logger.error('SES event that is not JSON', { snsMessageId: record.Sns.MessageId })
      continue
    }
    const decision = await events.handle(document)
    // The grant and what happened; never the addresses the document holds.
    logger.info('SES event', { snsMessageId: record.Sns.MessageId, ...decision })
  }
}

/** The MailEvents consumer's handler (functions/consumers.ts) over a runtime. Reads nothing at import. */
export const makeMailEventsHandler = (runtime: Runtime) => {
  const store = new DynamoDbGrantLifeStore(runtime.documentClient, runtime.config.tables)
  return mailEventsSnsHandler(
    makeMailEvents({
      life: makeGrantLife({ store, clock: () => runtime.clock.now() }),
      findGrant: (grantId) => store.findGrant(grantId),
    }),
  )
}
