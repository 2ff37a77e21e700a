import { runtimeFrom } from '../../composition'
import { makeMeHandler } from '../../http/routes/manage/me.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeMeHandler(runtimeFrom(process.env))
