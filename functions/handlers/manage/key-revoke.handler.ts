import { runtimeFrom } from '../../composition'
import { makeRevokeKeyHandler } from '../../http/routes/manage/key-revoke.route'
import { adminDeps } from '../../wiring/admin.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeRevokeKeyHandler(adminDeps(runtimeFrom(process.env)))
