import { runtimeFrom } from '../../composition'
import { makeSendGrantHandler } from '../../http/routes/manage/grants-send.route'
import { sendGrantDeps } from '../../wiring/manage-grants.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeSendGrantHandler(sendGrantDeps(runtimeFrom(process.env)))
