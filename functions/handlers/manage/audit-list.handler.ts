import { runtimeFrom } from '../../composition'
import { makeListAuditHandler } from '../../http/routes/manage/audit-list.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeListAuditHandler(runtimeFrom(process.env))
