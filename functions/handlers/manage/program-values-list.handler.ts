import { runtimeFrom } from '../../composition'
import { makeListProgramValuesHandler } from '../../http/routes/manage/program-values.route'
import { programValuesDeps } from '../../wiring/program-values.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeListProgramValuesHandler(programValuesDeps(runtimeFrom(process.env)))
