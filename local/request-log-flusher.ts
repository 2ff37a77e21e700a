import { type RequestLogWriter, requestLogEntriesOf } from '../functions/core/request-log-writer'
import { logLine, setRequestLogSink } from '../functions/runtime/request-log-sink'

/**
 * How often `npm start` writes the entries its routes recorded (issue 33): an entry is in the
 * `requests` table one tick and one BatchWriteItem after its request, well within 2 s.
 */
export const REQUEST_LOG_FLUSH_MS = 250

/** Entries kept while DynamoDB Local refuses them; past this the oldest are dropped (and said so). */
const MAX_PENDING = 10_000

/**
 * Runs `tick` every `everyMs` until the answer is called: real time, or a test's own hand (which
 * can wait for the tick's write: `tick` resolves once it is done).
 */
export type Ticker = (tick: () => Promise<void>, everyMs: number) => () => void

const realTicker: Ticker = (tick, everyMs) => {
  const timer = setInterval(() => void tick(), everyMs)
  return () => clearInterval(timer)
}

export type RequestLogFlusher = {
  /** Writes what is buffered now (after any flush in progress); failures stay buffered. */
  flush(): Promise<void>
  /** Entries recorded and not written yet. */
  pending(): number
  /** Stops the ticks, gives the sink back to the log line, and writes what is left. */
  stop(): Promise<void>
}

/**
 * The local server's request log sink: the routes' `recordRequest` entries are buffered and
 * handed to the RequestLog writer every `everyMs`, as the CloudWatch Logs subscription hands the
 * Lambda its lines in AWS. Each entry is copied as its log line would carry it (JSON) and checked
 * by the same schema, so what the writer refuses there it refuses here.
 */
export const startRequestLogFlusher = ({
  writer,
  everyMs = REQUEST_LOG_FLUSH_MS,
  ticker = realTicker,
  onError,
}: {
  writer: RequestLogWriter
  everyMs?: number
  ticker?: Ticker
  onError: (message: string) => void
}): RequestLogFlusher => {
  let buffer: unknown[] = []
  let flushing: Promise<void> = Promise.resolve()
  const writeBuffered = async () => {
    if (buffer.length === 0) return
    const values = buffer
    buffer = []
    const { entries, skipped } = requestLogEntriesOf(values)
    if (skipped > 0) onError(`request log: ${skipped} entries the writer refuses, skipped`)
    try {
      await writer.write(entries)
    } catch (error) {
      // Kept for the next tick, oldest first; the oldest go when too many wait.
      buffer = [...entries, ...buffer]
      const dropped = Math.max(0, buffer.length - MAX_PENDING)
      buffer = buffer.slice(dropped)
      onError(
        `request log: ${entries.length} entries not written (${error instanceof Error ? error.message : String(error)}), tried again${dropped > 0 ? `; ${dropped} dropped` : ''}`,
      )
    }
  }
  const flush = () => {
    flushing = flushing.then(writeBuffered)
    return flushing
  }
  setRequestLogSink((entry) => {
    logLine(entry)
    buffer.push(JSON.parse(JSON.stringify(entry)))
  })
  const cancel = ticker(flush, everyMs)
  return {
    flush,
    pending: () => buffer.length,
    stop: async () => {
      cancel()
      setRequestLogSink(undefined)
      await flush()
    },
  }
}
