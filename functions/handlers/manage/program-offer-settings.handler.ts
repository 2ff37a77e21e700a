import { runtimeFrom } from '../../composition'
import { makeProgramOfferSettingsHandler } from '../../http/routes/manage/program-offer-settings.route'
import { adminDeps } from '../../wiring/admin.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeProgramOfferSettingsHandler(adminDeps(runtimeFrom(process.env)))
