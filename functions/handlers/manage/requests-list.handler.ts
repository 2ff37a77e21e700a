import { runtimeFrom } from '../../composition'
import { makeListRequestsHandler } from '../../http/routes/manage/requests-list.route'
import { requestLogDeps } from '../../wiring/request-log.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeListRequestsHandler(requestLogDeps(runtimeFrom(process.env)))
