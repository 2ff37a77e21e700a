import { runtimeFrom } from '../../composition'
import { makeRollKeyHandler } from '../../http/routes/manage/key-roll.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeRollKeyHandler(runtimeFrom(process.env))
