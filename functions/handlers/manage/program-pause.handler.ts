import { runtimeFrom } from '../../composition'
import { makePauseProgramHandler } from '../../http/routes/manage/program-pause.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makePauseProgramHandler(runtimeFrom(process.env))
