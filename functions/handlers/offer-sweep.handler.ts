import { runtimeFrom } from '../composition'
import { makeOfferSweepHandler } from '../wiring/offer-sweep.consumer'

/** Lambda's entry (EventBridge, every minute): the runtime is built once, at cold start. */
export const handler = makeOfferSweepHandler(runtimeFrom(process.env))
