import type { Runtime } from '../composition'
import { AccessCache } from '../core/access-cache'
import { RateLimiter } from '../core/rate-limiter'
import type { IntegratorRequestDeps } from '../http/integrator-request'
import { DynamoDbGrantStore } from '../stores/grants.dynamodb'
import { DynamoDbRateLeases } from '../stores/rate-leases.dynamodb'

/**
 * An integrator entry point's rate limit and request log (http/integrator-request.ts): its own
 * limiter (this instance's share of each key's limit, leased from the key's bucket in the apiKeys
 * table) and the access cache it reads keys through; the grant route passes its use case's.
 */
export const integratorRequestDeps = (
  runtime: Runtime,
  access?: AccessCache,
): IntegratorRequestDeps => ({
  limiter: new RateLimiter({
    leases: new DynamoDbRateLeases(runtime.documentClient, runtime.config.tables),
    now: () => runtime.clock.now(),
  }),
  access:
    access ??
    new AccessCache(new DynamoDbGrantStore(runtime.documentClient, runtime.config.tables), {
      now: () => runtime.monotonic.now(),
    }),
  clock: () => runtime.clock.now(),
})
