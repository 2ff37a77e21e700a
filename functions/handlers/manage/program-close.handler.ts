import { runtimeFrom } from '../../composition'
import { makeCloseProgramHandler } from '../../http/routes/manage/program-close.route'
import { adminDeps } from '../../wiring/admin.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeCloseProgramHandler(adminDeps(runtimeFrom(process.env)))
