import type { RequestLogEntry } from '../domain/request-log'
import { logger } from './logger'

/**
 * Where an integrator request's log entry goes (issue 33). In AWS: one structured log line
 * (`message: "request"`, the entry under `requestLog`), which a CloudWatch Logs subscription hands
 * to the RequestLog writer, so the request path writes nothing to DynamoDB. Under `npm start` the
 * local server sets a sink that feeds the same writer in-process (local/).
 */
export type RequestLogSink = (entry: RequestLogEntry) => void

export const REQUEST_LOG_MESSAGE = 'request'

/** The line a Lambda prints (the local sink prints it too, so `npm start`'s log is AWS's). */
export const logLine: RequestLogSink = (entry) =>
  logger.info(REQUEST_LOG_MESSAGE, { requestLog: entry })

let sink: RequestLogSink = logLine

export const recordRequest = (entry: RequestLogEntry): void => sink(entry)

/** The local server's (and tests') hook; `undefined` restores the log line. */
export const setRequestLogSink = (next: RequestLogSink | undefined): void => {
  sink = next ?? logLine
}
