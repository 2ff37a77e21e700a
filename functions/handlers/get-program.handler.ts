import { runtimeFrom } from '../composition'
import { makeGetProgramHandler } from '../http/routes/get-program.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeGetProgramHandler(runtimeFrom(process.env))
