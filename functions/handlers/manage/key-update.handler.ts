import { runtimeFrom } from '../../composition'
import { makeUpdateKeyHandler } from '../../http/routes/manage/key-update.route'
import { adminDeps } from '../../wiring/admin.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeUpdateKeyHandler(adminDeps(runtimeFrom(process.env)))
