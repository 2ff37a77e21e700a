import type { ConsumerFactories } from './pipeline'

/**
 * The consumers `npm start` and the tests' pipeline (test/support/pipeline.ts) plug in, by their
 * functions/consumers.ts id, each a factory over the pipeline's runtime and local queues (as
 * functions/http/routes/route-factories.ts is for routes). GrantStream is built by the pipeline
 * itself (local/pipeline.ts). A consumer not listed here leaves its queue filling up: the pipeline's
 * status shows it.
 *
 * To plug one in: `OfferMailer: (runtime) => makeOfferMailerHandler(runtime, ...)`, returning the
 * handler Lambda would run (an SQS consumer answers `{ batchItemFailures }`).
 */
export const LOCAL_CONSUMERS: ConsumerFactories = {}
