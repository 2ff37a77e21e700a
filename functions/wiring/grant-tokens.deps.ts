import type { Runtime } from '../composition'
import { AccessCache } from '../core/access-cache'
import { makeGrantTokens } from '../core/grant-tokens'
import type { GrantTokensRouteDeps } from '../http/routes/grant-tokens.route'
import { DynamoDbGrantStore } from '../stores/grants.dynamodb'

/** The grant route's use case over the runtime's client and clocks: one store, one access cache. */
export const grantTokensDeps = (runtime: Runtime): GrantTokensRouteDeps => {
  const store = new DynamoDbGrantStore(runtime.documentClient, runtime.config.tables)
  return {
    grantTokens: makeGrantTokens({
      store,
      access: new AccessCache(store, { now: () => runtime.monotonic.now() }),
      clock: () => runtime.clock.now(),
    }),
  }
}
