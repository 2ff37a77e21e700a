import { runtimeFrom } from '../composition'
import { makeMailEventsHandler } from '../wiring/mail-events.consumer'

/** Lambda's entry (SNS topic of the SES configuration set): the runtime is built once, at cold start. */
export const handler = makeMailEventsHandler(runtimeFrom(process.env))
