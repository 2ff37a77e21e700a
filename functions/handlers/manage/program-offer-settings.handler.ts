import { runtimeFrom } from '../../composition'
import { makeProgramOfferSettingsHandler } from '../../http/routes/manage/program-offer-settings.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeProgramOfferSettingsHandler(runtimeFrom(process.env))
