import { runtimeFrom } from '../../composition'
import { makeRollKeyHandler } from '../../http/routes/manage/key-roll.route'
import { adminDeps } from '../../wiring/admin.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeRollKeyHandler(adminDeps(runtimeFrom(process.env)))
