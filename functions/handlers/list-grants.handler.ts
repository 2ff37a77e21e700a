import { runtimeFrom } from '../composition'
import { makeListGrantsHandler } from '../http/routes/list-grants.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeListGrantsHandler(runtimeFrom(process.env))
