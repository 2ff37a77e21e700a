import { runtimeFrom } from '../../composition'
import { makeManageCancelGrantHandler } from '../../http/routes/manage/grant-cancel.route'
import { grantLifeRouteDeps } from '../../wiring/manage-grants.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeManageCancelGrantHandler(grantLifeRouteDeps(runtimeFrom(process.env)))
