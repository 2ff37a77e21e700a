import { runtimeFrom } from '../../composition'
import { makeCreateProgramHandler } from '../../http/routes/manage/program-create.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeCreateProgramHandler(runtimeFrom(process.env))
