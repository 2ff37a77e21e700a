import { grantChangeRoute } from '../../manage-grant-life'

/**
 * `POST /manage/issuers/{issuerId}/grants/{grantId}/cancel` (admin): cancels a reserved or offered
 * grant, its shares back to the pool, its history line and the audit entry (`grant.cancel`) in
 * one transaction. A canceled grant answers as it is (idempotent, nothing written); an accepted
 * one `409 grant_accepted`, a rejected or expired one `409 grant_state_conflict`.
 */
export const makeManageCancelGrantHandler = grantChangeRoute('ManageCancelGrant', (life, input) =>
  life.cancel(input),
)
