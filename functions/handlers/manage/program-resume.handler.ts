import { runtimeFrom } from '../../composition'
import { makeResumeProgramHandler } from '../../http/routes/manage/program-resume.route'
import { adminDeps } from '../../wiring/admin.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeResumeProgramHandler(adminDeps(runtimeFrom(process.env)))
