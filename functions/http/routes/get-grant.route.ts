import type { makeGetGrant } from '../../core/get-grant'
import { toGrantDetail } from '../grant-life-resource'
import { type IntegratorRequests, integratorRoute } from './integrator-route'

/** What the route needs: the use case, built by the composition root (functions/wiring/). */
export type GetGrantRouteDeps = {
  readonly getGrant: ReturnType<typeof makeGetGrant>
} & IntegratorRequests

/** `GET /programs/{programId}/grants/{grantId}` with `x-api-key`: the grant with its history. */
export const makeGetGrantHandler = ({ getGrant, requests }: GetGrantRouteDeps) =>
  integratorRoute(getGrant, toGrantDetail, { requests })
