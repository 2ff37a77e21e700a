import { runtimeFrom } from '../composition'
import { makeGrantTokensHandler } from '../http/routes/grant-tokens.route'
import { grantTokensDeps } from '../wiring/grant-tokens.deps'

/** Lambda's entry: the runtime and the route's use case are built once, at cold start. */
export const handler = makeGrantTokensHandler(grantTokensDeps(runtimeFrom(process.env)))
