import { toBalanceResource } from '../balance-resource'
import type { IntegratorLifeRouteDeps } from './integrator-life'
import { integratorRoute } from './integrator-route'

/**
 * `GET /programs/{programId}/recipients/{email}/balance` with `x-api-key`: the recipient's shares
 * in the program (balance-resource.ts: the reference product's shape and ours). The address is
 * URL-encoded in the path and arrives decoded; access logs carry the route key, never the path.
 */
export const makeRecipientBalanceHandler = ({ life, requests }: IntegratorLifeRouteDeps) =>
  integratorRoute(
    (request, event) => life.balance({ ...request, email: event.pathParameters?.email }),
    toBalanceResource,
    { headers: { 'cache-control': 'no-store' }, requests },
  )
