import { runtimeFrom } from '../../composition'
import { makeOfferPreviewHandler } from '../../http/routes/manage/offer-preview.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeOfferPreviewHandler(runtimeFrom(process.env))
