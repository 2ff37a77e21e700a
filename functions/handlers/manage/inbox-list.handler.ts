import { runtimeFrom } from '../../composition'
import { makeListInboxHandler } from '../../http/routes/manage/inbox-list.route'
import { manageMailDeps } from '../../wiring/manage-mail.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeListInboxHandler(manageMailDeps(runtimeFrom(process.env)))
