import type { Context } from 'aws-lambda'
import type { Runtime } from '../composition'
import { makeGrantLife } from '../core/grant-life'
import { makeOfferSweep, type OfferSweepDeps, type OfferSweepReport } from '../core/offer-sweep'
import { logger } from '../runtime/logger'
import { DynamoDbGrantLifeStore } from '../stores/grant-life.dynamodb'
import { DynamoDbOfferTimerStore } from '../stores/offer-timers.dynamodb'

/** Leave this much of the function's time unused: the rest of the timers wait for the next run. */
const TIME_MARGIN_MS = 10_000

/**
 * The OfferSweep consumer's handler (functions/consumers.ts: EventBridge every minute; under
 * `npm start` local/pipeline.ts calls it on a timer and after POST /_local/clock) over a runtime:
 * the timers table and the grant's life, both on `runtime.clock`. Reads nothing at import.
 * `overrides` lets a test set the concurrency or the page size.
 */
export const makeOfferSweepHandler = (
  runtime: Runtime,
  overrides: Pick<OfferSweepDeps, 'slotConcurrency' | 'timerConcurrency' | 'pageSize'> = {},
) => {
  const { documentClient, config } = runtime
  const clock = () => runtime.clock.now()
  const life = makeGrantLife({
    store: new DynamoDbGrantLifeStore(documentClient, config.tables),
    clock,
  })
  const timers = new DynamoDbOfferTimerStore(documentClient, config.tables)
  return async (
    _event?: unknown,
    context?: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<OfferSweepReport> => {
    const sweep = makeOfferSweep({
      ...overrides,
      timers,
      life,
      clock,
      ...(context === undefined
        ? {}
        : { remainingMs: () => context.getRemainingTimeInMillis() - TIME_MARGIN_MS }),
      onFailure: (at, error) =>
        // The grant and the error's name: never an address.
        logger.warn('Offer sweep: left for the next run', {
          ...at,
          error: error instanceof Error ? error.name : 'unknown',
        }),
    })
    const report = await sweep()
    if (report.read > 0 || !report.complete) logger.info('Offer sweep', { ...report })
    return report
  }
}
