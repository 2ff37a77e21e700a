import { runtimeFrom } from '../composition'
import { makeListGrantsHandler } from '../http/routes/list-grants.route'
import { listGrantsDeps } from '../wiring/list-grants.deps'

/** Lambda's entry: the runtime and the route's use case are built once, at cold start. */
export const handler = makeListGrantsHandler(listGrantsDeps(runtimeFrom(process.env)))
