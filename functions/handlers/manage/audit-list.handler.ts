import { runtimeFrom } from '../../composition'
import { makeListAuditHandler } from '../../http/routes/manage/audit-list.route'
import { adminDeps } from '../../wiring/admin.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeListAuditHandler(adminDeps(runtimeFrom(process.env)))
