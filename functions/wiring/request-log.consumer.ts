import { gunzipSync } from 'node:zlib'
import type { CloudWatchLogsEvent } from 'aws-lambda'
import * as z from 'zod/mini'
import type { Runtime } from '../composition'
import {
  makeRequestLogWriter,
  type RequestLogWriter,
  requestLogEntriesOfLines,
} from '../core/request-log-writer'
import { logger } from '../runtime/logger'
import { makeRequestLogWrites } from '../stores/request-log-writes.dynamodb'

/**
 * What CloudWatch Logs hands a subscribed function, once `awslogs.data` is unzipped: a
 * DATA_MESSAGE with the log events that matched the filter, or the CONTROL_MESSAGE it sends to
 * check the destination is reachable (no events of ours).
 */
const LogsEnvelope = z.object({
  messageType: z.string(),
  logGroup: z.string(),
  logEvents: z.array(z.object({ id: z.string(), message: z.string() })),
})
export type LogsEnvelope = z.infer<typeof LogsEnvelope>

/** The envelope in `awslogs.data` (base64 of gzip of JSON), or undefined when it is not one. */
export const decodeLogsEvent = (event: CloudWatchLogsEvent): LogsEnvelope | undefined => {
  try {
    const json = JSON.parse(gunzipSync(Buffer.from(event.awslogs.data, 'base64')).toString('utf8'))
    const parsed = LogsEnvelope.safeParse(json)
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/**
 * The RequestLog handler over the writer: the request lines of one subscription delivery written
 * as entries. An envelope that cannot be read, a control message and lines that are no entry are
 * logged and dropped (retrying cannot mend them); entries left unwritten throw, so Lambda retries
 * the event (twice), then sends it to the dead letters (functions/consumers.ts).
 */
export const requestLogHandler =
  (writer: RequestLogWriter) =>
  async (event: CloudWatchLogsEvent): Promise<{ written: number; skipped: number }> => {
    const envelope = decodeLogsEvent(event)
    if (envelope === undefined) {
      logger.error('Request log: a delivery that is not a CloudWatch Logs envelope')
      return { written: 0, skipped: 0 }
    }
    if (envelope.messageType !== 'DATA_MESSAGE') return { written: 0, skipped: 0 }
    const { entries, skipped } = requestLogEntriesOfLines(
      envelope.logEvents.map((logEvent) => logEvent.message),
    )
    const { written } = await writer.write(entries)
    // Counts only: a skipped line may hold what it should not, and is not repeated here. Nothing
    // logged when all is well: a line per delivery would cost as much as the entries' own writes.
    if (skipped > 0) {
      logger.warn('Request log: lines that are no entry, skipped', {
        logGroup: envelope.logGroup,
        written,
        skipped,
      })
    }
    return { written, skipped }
  }

/** The writer over a runtime's client and `requests` table: the Lambda's and the local server's. */
export const makeRuntimeRequestLogWriter = (runtime: Runtime) =>
  makeRequestLogWriter({
    store: makeRequestLogWrites(runtime.documentClient, runtime.config.tables.requests),
  })

/** The RequestLog consumer's handler (functions/consumers.ts) over a runtime. Reads nothing at import. */
export const makeRequestLogHandler = (runtime: Runtime) =>
  requestLogHandler(makeRuntimeRequestLogWriter(runtime))
