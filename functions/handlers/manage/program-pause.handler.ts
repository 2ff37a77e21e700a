import { runtimeFrom } from '../../composition'
import { makePauseProgramHandler } from '../../http/routes/manage/program-pause.route'
import { adminDeps } from '../../wiring/admin.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makePauseProgramHandler(adminDeps(runtimeFrom(process.env)))
