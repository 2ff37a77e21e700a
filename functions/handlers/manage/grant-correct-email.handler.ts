import { runtimeFrom } from '../../composition'
import { makeManageCorrectEmailHandler } from '../../http/routes/manage/grant-correct-email.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeManageCorrectEmailHandler(runtimeFrom(process.env))
