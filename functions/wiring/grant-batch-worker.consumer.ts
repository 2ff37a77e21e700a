import type { Runtime } from '../composition'
import { AccessCache } from '../core/access-cache'
import { type BatchWorkerDeps, makeBatchRowsWorker } from '../core/grant-batch-worker'
import { makeGrantTokens } from '../core/grant-tokens'
import { batchFinishedMail } from '../mail/batch-finished-mail'
import { lazyMailer, type Mailer } from '../mail/mailer'
import { logger } from '../runtime/logger'
import { DynamoDbBatchStore } from '../stores/batches.dynamodb'
import { DynamoDbGrantStore } from '../stores/grants.dynamodb'

/**
 * The send-to-many worker (GrantBatchWorker, functions/consumers.ts) over a runtime: its Lambda
 * entry (handlers/grant-batch-worker.handler.ts) builds it once per process; npm start and the
 * tests plug the same into the local queue (local/consumer-factories.ts). The committer's e-mail
 * goes through the service's mailer (SES, the local mail sink, or nobody on a stage without a
 * sender). Reads nothing at import.
 */
export const makeBatchWorkerHandler = (
  runtime: Runtime,
  overrides: { mailer?: Mailer } & Pick<BatchWorkerDeps, 'rowsInParallel' | 'sleep' | 'now'> = {},
) => {
  const { documentClient, config } = runtime
  const grants = new DynamoDbGrantStore(documentClient, config.tables)
  const mailer =
    overrides.mailer === undefined ? lazyMailer(config.mail) : () => overrides.mailer as Mailer
  return makeBatchRowsWorker({
    batches: new DynamoDbBatchStore(documentClient, config.tables),
    grantTokens: makeGrantTokens({
      store: grants,
      access: new AccessCache(grants, { now: () => runtime.monotonic.now() }),
      clock: () => runtime.clock.now(),
      // The worker's waits and its grants' (a throttle's backoff) on one sleep, as the model runs them.
      ...(overrides.sleep === undefined ? {} : { sleep: overrides.sleep }),
    }),
    notifyFinished: async (batch, signal) => {
      const outcome = await mailer().send(batchFinishedMail(batch, config.mail.consoleUrl), {
        signal,
      })
      if (outcome === 'no_sender') {
        logger.info('batch finished: this stage has no mail sender, nobody e-mailed', {
          batchId: batch.batchId,
        })
      }
    },
    clock: () => runtime.clock.now(),
    ...(overrides.rowsInParallel === undefined ? {} : { rowsInParallel: overrides.rowsInParallel }),
    ...(overrides.sleep === undefined ? {} : { sleep: overrides.sleep }),
    ...(overrides.now === undefined ? {} : { now: overrides.now }),
  })
}
