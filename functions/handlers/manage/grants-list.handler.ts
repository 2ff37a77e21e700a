import { runtimeFrom } from '../../composition'
import { makeManageListGrantsHandler } from '../../http/routes/manage/grants-list.route'
import { manageListGrantsDeps } from '../../wiring/manage-grants.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeManageListGrantsHandler(manageListGrantsDeps(runtimeFrom(process.env)))
