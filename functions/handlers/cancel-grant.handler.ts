import { runtimeFrom } from '../composition'
import { makeCancelGrantHandler } from '../http/routes/cancel-grant.route'
import { integratorLifeDeps } from '../wiring/integrator-life.deps'

/** Lambda's entry: the runtime and the route's use case are built once, at cold start. */
export const handler = makeCancelGrantHandler(integratorLifeDeps(runtimeFrom(process.env)))
