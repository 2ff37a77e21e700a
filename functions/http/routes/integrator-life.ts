import type { Runtime } from '../../composition'
import { makeGrantLife } from '../../core/grant-life'
import { makeIntegratorGrantLife } from '../../core/integrator-grant-life'
import { DynamoDbGrantLifeStore } from '../../stores/grant-life.dynamodb'
import { DynamoDbGrantReads } from '../../stores/grants.reads.dynamodb'

/**
 * What the integrator's grant-life routes (cancel, test-transition, balance) share: the key and
 * program check of the reads, over the grant's life, both on the runtime's client and clock.
 */
export const integratorLife = (runtime: Runtime) => {
  const clock = () => runtime.clock.now()
  return makeIntegratorGrantLife({
    reads: new DynamoDbGrantReads(runtime.documentClient, runtime.config.tables),
    life: makeGrantLife({
      store: new DynamoDbGrantLifeStore(runtime.documentClient, runtime.config.tables),
      clock,
    }),
    clock,
  })
}
