import { runtimeFrom } from '../composition'
import { makeCancelGrantHandler } from '../http/routes/cancel-grant.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeCancelGrantHandler(runtimeFrom(process.env))
