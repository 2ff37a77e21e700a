import { runtimeFrom } from '../../composition'
import { makeManageResendOfferHandler } from '../../http/routes/manage/grant-resend.route'
import { grantLifeRouteDeps } from '../../wiring/manage-grants.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeManageResendOfferHandler(grantLifeRouteDeps(runtimeFrom(process.env)))
