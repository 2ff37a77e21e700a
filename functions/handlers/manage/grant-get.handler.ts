import { runtimeFrom } from '../../composition'
import { makeManageGetGrantHandler } from '../../http/routes/manage/grant-get.route'
import { manageGetGrantDeps } from '../../wiring/manage-grants.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeManageGetGrantHandler(manageGetGrantDeps(runtimeFrom(process.env)))
