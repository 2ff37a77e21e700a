import { runtimeFrom } from '../../composition'
import { makeCloseProgramHandler } from '../../http/routes/manage/program-close.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeCloseProgramHandler(runtimeFrom(process.env))
