import { runtimeFrom } from '../composition'
import { makeRequestLogHandler } from '../wiring/request-log.consumer'

/** Lambda's entry (a CloudWatch Logs subscription on the grant API's log group): built once, at cold start. */
export const handler = makeRequestLogHandler(runtimeFrom(process.env))
