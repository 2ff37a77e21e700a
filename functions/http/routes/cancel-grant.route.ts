import type { Runtime } from '../../composition'
import { toGrantDetail } from '../grant-life-resource'
import { httpHandler, json } from '../http-handler'
import { integratorLife } from './integrator-life'

/**
 * `POST /programs/{programId}/grants/{grantId}/cancel` with `x-api-key`: cancels a reserved or
 * offered grant (its shares go back to the pool), answering the grant with its history. Again on
 * a canceled grant: the same 200, nothing written. Accepted: 409 grant_accepted; rejected or
 * expired: 409 grant_state_conflict. No body is read.
 */
export const makeCancelGrantHandler = (runtime: Runtime) => {
  const life = integratorLife(runtime)
  return httpHandler(async (event, deadline) =>
    json(
      200,
      toGrantDetail(
        await life.cancel({
          apiKey: event.headers['x-api-key'],
          programId: event.pathParameters?.programId,
          grantId: event.pathParameters?.grantId,
          deadline,
        }),
      ),
    ),
  )
}
