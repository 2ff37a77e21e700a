import { runtimeFrom } from '../composition'
import { makeRecipientBalanceHandler } from '../http/routes/recipient-balance.route'
import { integratorLifeDeps } from '../wiring/integrator-life.deps'

/** Lambda's entry: the runtime and the route's use case are built once, at cold start. */
export const handler = makeRecipientBalanceHandler(integratorLifeDeps(runtimeFrom(process.env)))
