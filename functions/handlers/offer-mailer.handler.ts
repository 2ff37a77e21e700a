import { runtimeFrom } from '../composition'
import { makeOfferMailerHandler } from '../wiring/offer-mailer.consumer'

/** Lambda's entry (queue OfferMail): the runtime and the mailer are built once, at cold start. */
export const handler = makeOfferMailerHandler(runtimeFrom(process.env))
