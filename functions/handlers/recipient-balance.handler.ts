import { runtimeFrom } from '../composition'
import { makeRecipientBalanceHandler } from '../http/routes/recipient-balance.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeRecipientBalanceHandler(runtimeFrom(process.env))
