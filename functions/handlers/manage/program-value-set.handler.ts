import { runtimeFrom } from '../../composition'
import { makeSetProgramValueHandler } from '../../http/routes/manage/program-values.route'
import { programValuesDeps } from '../../wiring/program-values.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeSetProgramValueHandler(programValuesDeps(runtimeFrom(process.env)))
