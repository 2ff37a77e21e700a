import { runtimeFrom } from '../../composition'
import { makeResumeProgramHandler } from '../../http/routes/manage/program-resume.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeResumeProgramHandler(runtimeFrom(process.env))
