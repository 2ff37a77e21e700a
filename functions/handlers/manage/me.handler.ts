import { runtimeFrom } from '../../composition'
import { makeMeHandler } from '../../http/routes/manage/me.route'
import { meDeps } from '../../wiring/me.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeMeHandler(meDeps(runtimeFrom(process.env)))
