import { runtimeFrom } from '../../composition'
import { makeGetProgramHandler } from '../../http/routes/manage/program-get.route'
import { adminDeps } from '../../wiring/admin.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeGetProgramHandler(adminDeps(runtimeFrom(process.env)))
