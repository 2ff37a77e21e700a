import type { Runtime } from '../../composition'
import { toBalanceResource } from '../balance-resource'
import { httpHandler, json } from '../http-handler'
import { integratorLife } from './integrator-life'

/**
 * `GET /programs/{programId}/recipients/{email}/balance` with `x-api-key`: the recipient's shares
 * in the program (balance-resource.ts: the reference product's shape and ours). The address is
 * URL-encoded in the path and arrives decoded; access logs carry the route key, never the path.
 */
export const makeRecipientBalanceHandler = (runtime: Runtime) => {
  const life = integratorLife(runtime)
  return httpHandler(async (event, deadline) =>
    json(
      200,
      toBalanceResource(
        await life.balance({
          apiKey: event.headers['x-api-key'],
          programId: event.pathParameters?.programId,
          email: event.pathParameters?.email,
          deadline,
        }),
      ),
      { 'cache-control': 'no-store' },
    ),
  )
}
