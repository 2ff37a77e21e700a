import { runtimeFrom } from '../composition'
import { makeMailEventsHandler } from '../core/mail-events.factory'

/** Lambda's entry (SNS topic of the SES configuration set): the runtime is built once, at cold start. */
export const handler = makeMailEventsHandler(runtimeFrom(process.env))
