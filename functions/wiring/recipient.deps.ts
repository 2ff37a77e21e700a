import type { Runtime } from '../composition'
import { makeGrantLife } from '../core/grant-life'
import type { RecipientRouteDeps } from '../http/routes/recipient-route'
import { DynamoDbGrantLifeStore } from '../stores/grant-life.dynamodb'
import { holdingsOver } from './recipient-holdings.deps'

/**
 * The recipient's link routes (offer, identify, accept, decline): the grant's life, the clock, and
 * the holdings sessions (a step from the holdings page names its session instead of a token).
 */
export const recipientDeps = (runtime: Runtime): RecipientRouteDeps => {
  const clock = () => runtime.clock.now()
  return {
    life: makeGrantLife({
      store: new DynamoDbGrantLifeStore(runtime.documentClient, runtime.config.tables),
      clock,
    }),
    clock,
    holders: holdingsOver(runtime),
  }
}
