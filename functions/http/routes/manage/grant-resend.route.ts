import { grantChangeRoute } from '../../manage-grant-life'

/**
 * `POST /manage/issuers/{issuerId}/grants/{grantId}/resend` (admin): asks for the offer e-mail
 * again (a new link; earlier links keep working until the offer ends), audited `grant.resend`.
 * At most once per 10 minutes per grant (`429 resend_too_soon`, Retry-After); a grant no longer
 * open answers 409 (`grant_accepted`, `grant_state_conflict`).
 */
export const makeManageResendOfferHandler = grantChangeRoute('ManageResendOffer', (life, input) =>
  life.resend(input),
)
