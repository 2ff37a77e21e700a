import { runtimeFrom } from '../composition'
import { makeTestTransitionHandler } from '../http/routes/test-transition.route'
import { integratorLifeDeps } from '../wiring/integrator-life.deps'

/** Lambda's entry: the runtime and the route's use case are built once, at cold start. */
export const handler = makeTestTransitionHandler(integratorLifeDeps(runtimeFrom(process.env)))
