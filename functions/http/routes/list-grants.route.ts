import type { makeListGrants } from '../../core/list-grants'
import { toGrantLifeResource } from '../grant-life-resource'
import { type IntegratorRequests, integratorRoute } from './integrator-route'

/** What the route needs: the use case, built by the composition root (functions/wiring/). */
export type ListGrantsRouteDeps = {
  readonly listGrants: ReturnType<typeof makeListGrants>
} & IntegratorRequests

/**
 * `GET /programs/{programId}/grants?recipient=&status=&cursor=&limit=` with `x-api-key`: the
 * program's grants, newest first, as the grant API shows a grant with its state (grant-life-resource.ts,
 * without the history: the GET of one grant has it).
 */
export const makeListGrantsHandler = ({ listGrants, requests }: ListGrantsRouteDeps) =>
  integratorRoute(
    (request, event) => listGrants({ ...request, query: event.queryStringParameters }),
    (page) => ({
      object: 'list',
      data: page.items.map(toGrantLifeResource),
      nextCursor: page.nextCursor ?? null,
    }),
    { requests },
  )
