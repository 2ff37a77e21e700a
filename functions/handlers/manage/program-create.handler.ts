import { runtimeFrom } from '../../composition'
import { makeCreateProgramHandler } from '../../http/routes/manage/program-create.route'
import { adminDeps } from '../../wiring/admin.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeCreateProgramHandler(adminDeps(runtimeFrom(process.env)))
