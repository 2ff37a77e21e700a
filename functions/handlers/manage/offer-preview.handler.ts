import { runtimeFrom } from '../../composition'
import { makeOfferPreviewHandler } from '../../http/routes/manage/offer-preview.route'
import { manageMailDeps } from '../../wiring/manage-mail.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeOfferPreviewHandler(manageMailDeps(runtimeFrom(process.env)))
