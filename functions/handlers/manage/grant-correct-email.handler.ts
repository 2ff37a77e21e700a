import { runtimeFrom } from '../../composition'
import { makeManageCorrectEmailHandler } from '../../http/routes/manage/grant-correct-email.route'
import { grantLifeRouteDeps } from '../../wiring/manage-grants.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeManageCorrectEmailHandler(grantLifeRouteDeps(runtimeFrom(process.env)))
