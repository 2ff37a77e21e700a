import { runtimeFrom } from '../composition'
import { makeGetGrantHandler } from '../http/routes/get-grant.route'
import { getGrantDeps } from '../wiring/get-grant.deps'

/** Lambda's entry: the runtime and the route's use case are built once, at cold start. */
export const handler = makeGetGrantHandler(getGrantDeps(runtimeFrom(process.env)))
