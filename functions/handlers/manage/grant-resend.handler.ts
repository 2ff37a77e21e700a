import { runtimeFrom } from '../../composition'
import { makeManageResendOfferHandler } from '../../http/routes/manage/grant-resend.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeManageResendOfferHandler(runtimeFrom(process.env))
