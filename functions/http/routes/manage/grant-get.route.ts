import type { GrantLifeStore } from '../../../stores/grant-life.store'
import { grantAnswer, grantNotInIssuer, grantRoute } from '../../manage-grant-life'
import type { ManageDeps } from '../../manage-handler'

/** What the route reads: the grant, strongly consistent (wiring/manage-grants.deps.ts). */
export type ManageGetGrantDeps = ManageDeps & {
  readonly grants: Pick<GrantLifeStore, 'findGrant'>
}

/**
 * `GET /manage/issuers/{issuerId}/grants/{grantId}` (viewer): one grant of the issuer, both
 * modes, with its state, the end of its offer window, its delivery and its timeline. Another
 * issuer's grant answers exactly like a missing one.
 */
export const makeManageGetGrantHandler = ({ grants, ...deps }: ManageGetGrantDeps) =>
  grantRoute(deps, 'ManageGetGrant', async ({ grantId, issuerId, deadline }) => {
    const grant = await grants.findGrant(grantId, { signal: deadline.signal })
    if (grant === undefined || grant.issuerId !== issuerId) throw grantNotInIssuer(grantId)
    return grantAnswer(grant)
  })
