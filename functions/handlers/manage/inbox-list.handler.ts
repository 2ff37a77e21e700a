import { runtimeFrom } from '../../composition'
import { makeListInboxHandler } from '../../http/routes/manage/inbox-list.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeListInboxHandler(runtimeFrom(process.env))
