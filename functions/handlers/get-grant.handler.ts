import { runtimeFrom } from '../composition'
import { makeGetGrantHandler } from '../http/routes/get-grant.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeGetGrantHandler(runtimeFrom(process.env))
