import type { RequestLogEntry } from '../domain/request-log'
import { parseRequestLogEntry } from '../domain/request-log-entry.schema'
import { REQUEST_LOG_MESSAGE } from '../runtime/request-log-sink'
import type { RequestLogCallOptions, RequestLogStore } from '../stores/request-log.store'
import { throttled } from '../stores/store-errors'

/** What a batch of log lines or values held: the entries, and how many were not one. */
export type RequestLogBatch = { entries: RequestLogEntry[]; skipped: number }

/**
 * The entries among values of unknown shape (each a log line's `requestLog`, or what the local
 * server's sink collected): each checked by the schema, anything else counted as skipped.
 */
export const requestLogEntriesOf = (values: readonly unknown[]): RequestLogBatch => {
  const entries: RequestLogEntry[] = []
  for (const value of values) {
    const entry = parseRequestLogEntry(value)
    if (entry) entries.push(entry)
  }
  return { entries, skipped: values.length - entries.length }
}

/** A log line's JSON object, from its first `{` (a text-format prefix, if any, is not ours). */
const jsonOf = (line: string): unknown => {
  const start = line.indexOf('{')
  if (start < 0) return undefined
  try {
    return JSON.parse(line.slice(start))
  } catch {
    return undefined
  }
}

/**
 * The entries in log lines (each a Powertools JSON line of an integrator route's function): the
 * lines whose `message` is "request" with a valid `requestLog`. Any other line (not JSON, another
 * message, an entry the schema refuses) is skipped and counted: retrying cannot mend it.
 */
export const requestLogEntriesOfLines = (lines: readonly string[]): RequestLogBatch => {
  const values: unknown[] = []
  for (const line of lines) {
    const json = jsonOf(line) as { message?: unknown; requestLog?: unknown } | undefined
    values.push(json?.message === REQUEST_LOG_MESSAGE ? json.requestLog : undefined)
  }
  return requestLogEntriesOf(values)
}

/**
 * The request log's one writer (issue 33): in AWS the RequestLog function (a CloudWatch Logs
 * subscription on the integrator routes' log group), under `npm start` the local server's flusher.
 * Entries already parsed; a request id written twice is the same item. DynamoDB away or throttling
 * past the store's retries: throws StoreUnavailable (`throttled`), so Lambda tries the event again.
 */
export const makeRequestLogWriter = ({
  store,
}: {
  store: Pick<RequestLogStore, 'putEntries'>
}) => ({
  async write(
    entries: readonly RequestLogEntry[],
    options: RequestLogCallOptions = {},
  ): Promise<{ written: number }> {
    if (entries.length === 0) return { written: 0 }
    const outcome = await store.putEntries(entries, options)
    if (outcome === 'unavailable') throw throttled('request log entries left unwritten')
    return { written: new Set(entries.map((entry) => entry.requestId)).size }
  },
})

export type RequestLogWriter = ReturnType<typeof makeRequestLogWriter>
