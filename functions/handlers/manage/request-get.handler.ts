import { runtimeFrom } from '../../composition'
import { makeGetRequestHandler } from '../../http/routes/manage/request-get.route'
import { requestLogDeps } from '../../wiring/request-log.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeGetRequestHandler(requestLogDeps(runtimeFrom(process.env)))
