import type { Runtime } from '../composition'
import { makeProgramAccess } from '../core/get-program'
import { makeGrantLife } from '../core/grant-life'
import { makeIntegratorGrantLife } from '../core/integrator-grant-life'
import type { IntegratorLifeRouteDeps } from '../http/routes/integrator-life'
import { DynamoDbGrantLifeStore } from '../stores/grant-life.dynamodb'
import { DynamoDbGrantReads } from '../stores/grants.reads.dynamodb'
import { integratorRequestDeps } from './integrator-requests.deps'

/**
 * What the integrator's grant-life routes (cancel, test-transition, balance) share: the key and
 * program check of the reads, over the grant's life, both on the runtime's client and clock.
 */
export const integratorLifeDeps = (runtime: Runtime): IntegratorLifeRouteDeps => {
  const clock = () => runtime.clock.now()
  const { tables } = runtime.config
  return {
    life: makeIntegratorGrantLife({
      access: makeProgramAccess({
        store: new DynamoDbGrantReads(runtime.documentClient, tables),
        clock,
      }),
      life: makeGrantLife({
        store: new DynamoDbGrantLifeStore(runtime.documentClient, tables),
        clock,
      }),
    }),
    requests: integratorRequestDeps(runtime),
  }
}
