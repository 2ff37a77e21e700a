import { runtimeFrom } from '../../composition'
import { makeSendGrantHandler } from '../../http/routes/manage/grants-send.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeSendGrantHandler(runtimeFrom(process.env))
