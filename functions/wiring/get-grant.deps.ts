import type { Runtime } from '../composition'
import { makeGetGrant } from '../core/get-grant'
import type { GetGrantRouteDeps } from '../http/routes/get-grant.route'
import { DynamoDbGrantStore } from '../stores/grants.dynamodb'
import { integratorRequestDeps } from './integrator-requests.deps'

/** The integrator's GET of a grant: key and grant in one read, on the runtime's client and clock. */
export const getGrantDeps = (runtime: Runtime): GetGrantRouteDeps => ({
  getGrant: makeGetGrant({
    store: new DynamoDbGrantStore(runtime.documentClient, runtime.config.tables),
    clock: () => runtime.clock.now(),
  }),
  requests: integratorRequestDeps(runtime),
})
