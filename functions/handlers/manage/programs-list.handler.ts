import { runtimeFrom } from '../../composition'
import { makeListProgramsHandler } from '../../http/routes/manage/programs-list.route'
import { adminDeps } from '../../wiring/admin.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeListProgramsHandler(adminDeps(runtimeFrom(process.env)))
