import type { Runtime } from '../composition'
import { makeGetGrant } from '../core/get-grant'
import type { GetGrantRouteDeps } from '../http/routes/get-grant.route'
import { DynamoDbGrantStore } from '../stores/grants.dynamodb'

/** The integrator's GET of a grant: key and grant in one read, on the runtime's client and clock. */
export const getGrantDeps = (runtime: Runtime): GetGrantRouteDeps => ({
  getGrant: makeGetGrant({
    store: new DynamoDbGrantStore(runtime.documentClient, runtime.config.tables),
    clock: () => runtime.clock.now(),
  }),
})
