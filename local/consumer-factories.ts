import { randomUUID } from 'node:crypto'
import { consumerById, WEBHOOKS_QUEUE } from '../functions/consumers'
import { makeBatchWorkerHandler } from '../functions/wiring/grant-batch-worker.consumer'
import { makeOfferMailerHandler } from '../functions/wiring/offer-mailer.consumer'
import { makeOfferSweepHandler } from '../functions/wiring/offer-sweep.consumer'
import { makeWebhookSenderHandler } from '../functions/wiring/webhook-sender.consumer'
import type { ConsumerFactories } from './pipeline'
import { type LocalQueue, localQueueSender } from './queue'

/**
 * The consumers `npm start` and the tests' pipeline (test/support/pipeline.ts) plug in, by their
 * functions/consumers.ts id, each a factory over the pipeline's runtime and local queues (as
 * functions/wiring/route-factories.ts is for routes). The stream readers (GrantStream,
 * GrantFigures) are built by the pipeline itself (local/pipeline.ts). A consumer not listed here leaves its queue filling up: the pipeline's
 * status shows it.
 *
 * To plug one in: `OfferMailer: (runtime) => makeOfferMailerHandler(runtime, ...)`, returning the
 * handler Lambda would run (an SQS consumer answers `{ batchItemFailures }`).
 */
export const LOCAL_CONSUMERS: ConsumerFactories = {
  // The same sweep as the Lambda's, on the pipeline's runtime and so its clock (npm start's offset
  // clock): run on the schedule and by POST /_local/clock.
  OfferSweep: (runtime) => makeOfferSweepHandler(runtime),
  // The Lambda's offer mailer: LIVE mail to the mail sink (MAIL_SINK_FILE, unpaced), TEST mail to
  // the TEST inbox and the sink; links to RECIPIENT_ORIGIN, else CONSOLE_URL's origin.
  OfferMailer: (runtime) => makeOfferMailerHandler(runtime),
  // The Lambda's send-to-many worker, each invocation with the function's timeout as Lambda gives
  // it; the committer's e-mail goes to the mail sink.
  GrantBatchWorker: (runtime) => {
    const worker = makeBatchWorkerHandler(runtime)
    const timeoutMs = consumerById('GrantBatchWorker').timeoutSeconds * 1000
    return (event) => {
      const end = Date.now() + timeoutMs
      return worker(event, {
        awsRequestId: `local-${randomUUID()}`,
        getRemainingTimeInMillis: () => Math.max(0, end - Date.now()),
      })
    }
  },
  // The Lambda's webhook sender: deliveries, hops and replay pages go back on the local Webhooks
  // queue (its delays on the pipeline's clock, so a moved clock brings a retry forward); loopback
  // receivers allowed when WEBHOOK_ALLOW_LOOPBACK is true (local/local-env.ts sets it).
  WebhookSender: (runtime, queues) =>
    makeWebhookSenderHandler(runtime, {
      queue: localQueueSender(queues[WEBHOOKS_QUEUE.id] as LocalQueue),
    }),
}
