import { runtimeFrom } from '../../composition'
import { makeListKeysHandler } from '../../http/routes/manage/keys-list.route'
import { adminDeps } from '../../wiring/admin.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeListKeysHandler(adminDeps(runtimeFrom(process.env)))
