import { runtimeFrom } from '../composition'
import { makeGetProgramHandler } from '../http/routes/get-program.route'
import { getProgramDeps } from '../wiring/get-program.deps'

/** Lambda's entry: the runtime and the route's use case are built once, at cold start. */
export const handler = makeGetProgramHandler(getProgramDeps(runtimeFrom(process.env)))
