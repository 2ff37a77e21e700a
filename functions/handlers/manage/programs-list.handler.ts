import { runtimeFrom } from '../../composition'
import { makeListProgramsHandler } from '../../http/routes/manage/programs-list.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeListProgramsHandler(runtimeFrom(process.env))
