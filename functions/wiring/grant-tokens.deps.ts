import type { Runtime } from '../composition'
import { AccessCache } from '../core/access-cache'
import { makeGrantTokens } from '../core/grant-tokens'
import type { GrantTokensRouteDeps } from '../http/routes/grant-tokens.route'
import { DynamoDbGrantStore } from '../stores/grants.dynamodb'
import { integratorRequestDeps } from './integrator-requests.deps'

/**
 * The grant route's use case over the runtime's client and clocks: one store, one access cache,
 * and the key's rate limit and request log over the same cache.
 */
export const grantTokensDeps = (runtime: Runtime): GrantTokensRouteDeps => {
  const store = new DynamoDbGrantStore(runtime.documentClient, runtime.config.tables)
  // One cache for the rate limit's key check and the use case's: warm, neither reads.
  const access = new AccessCache(store, { now: () => runtime.monotonic.now() })
  return {
    grantTokens: makeGrantTokens({ store, access, clock: () => runtime.clock.now() }),
    requests: integratorRequestDeps(runtime, access),
  }
}
