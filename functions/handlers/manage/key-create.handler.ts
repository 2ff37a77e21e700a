import { runtimeFrom } from '../../composition'
import { makeCreateKeyHandler } from '../../http/routes/manage/key-create.route'
import { adminDeps } from '../../wiring/admin.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeCreateKeyHandler(adminDeps(runtimeFrom(process.env)))
