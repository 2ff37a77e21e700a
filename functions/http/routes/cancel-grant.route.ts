import { toGrantDetail } from '../grant-life-resource'
import type { IntegratorLifeRouteDeps } from './integrator-life'
import { integratorRoute } from './integrator-route'

/**
 * `POST /programs/{programId}/grants/{grantId}/cancel` with `x-api-key`: cancels a reserved or
 * offered grant (its shares go back to the pool), answering the grant with its history. Again on
 * a canceled grant: the same 200, nothing written. Accepted: 409 grant_accepted; rejected or
 * expired: 409 grant_state_conflict. No body is read.
 */
export const makeCancelGrantHandler = ({ life, requests }: IntegratorLifeRouteDeps) =>
  integratorRoute((request) => life.cancel(request), toGrantDetail, { requests })
