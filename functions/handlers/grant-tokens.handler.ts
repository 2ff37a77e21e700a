import { runtimeFrom } from '../composition'
import { makeGrantTokensHandler } from '../http/routes/grant-tokens.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeGrantTokensHandler(runtimeFrom(process.env))
