import { gzipSync } from 'node:zlib'
import type { CloudWatchLogsEvent } from 'aws-lambda'
import { newId } from '../../functions/domain/ids'
import { newRequestId } from '../../functions/domain/request-id'
import type { RequestLogEntry } from '../../functions/domain/request-log'
import { logger } from '../../functions/runtime/logger'

/**
 * What the request log's writer is handed in AWS, made from what the code writes: the lines
 * Powertools prints for `recordRequest` (or any other logger call), captured from stdout, and the
 * `awslogs` event CloudWatch Logs builds from them (base64 of gzip of its JSON envelope).
 */

/**
 * Starts catching what the process's logger prints, at INFO, as Lambda would ingest it: `stop()`
 * gives stdout and the level back and answers the lines (for a write that awaits, such as a
 * request to the local server).
 */
export const catchLines = () => {
  const level = logger.getLevelName()
  logger.setLogLevel('INFO')
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true)
  return {
    stop: (): string[] => {
      const lines = stdout.mock.calls
        .map(([chunk]) => String(chunk))
        .join('')
        .split('\n')
        .filter((line) => line.length > 0)
      stdout.mockRestore()
      logger.setLogLevel(level)
      return lines
    },
  }
}

/** The lines `write` makes the process's logger print. */
export const capturedLines = (write: () => void): string[] => {
  const caught = catchLines()
  try {
    write()
  } catch (error) {
    caught.stop()
    throw error
  }
  return caught.stop()
}

/** A CloudWatch Logs subscription's event for `messages` of one log group. */
export const awslogsEvent = (
  messages: readonly string[],
  { messageType = 'DATA_MESSAGE', logGroup = 'VirtualShares-prod-ApiLogs0A1B2C3D-x1y2z3' } = {},
): CloudWatchLogsEvent => {
  const envelope = {
    messageType,
    owner: '123456789012',
    logGroup,
    logStream: '2026/11/29/VirtualShares-prod-GrantTokensFunction[$LATEST]0123456789abcdef',
    subscriptionFilters: ['VirtualShares-prod-PipelineRequestLogSubscription'],
    logEvents: messages.map((message, index) => ({
      id: `${38_000_000_000_000_000 + index}`,
      timestamp: Date.now(),
      message,
    })),
  }
  return {
    awslogs: { data: gzipSync(Buffer.from(JSON.stringify(envelope))).toString('base64') },
  }
}

/** A request log entry of a new issuer's TEST key at `ms`, with `extra` fields. */
export const sampleEntry = (
  ms: number,
  extra: Partial<RequestLogEntry> = {},
  issuerId = newId('issuer'),
): RequestLogEntry => ({
  requestId: newRequestId(ms),
  at: new Date(ms).toISOString(),
  issuerId,
  mode: 'TEST',
  keyId: newId('apiKey'),
  method: 'POST',
  route: 'POST /programs/{programId}/grant-tokens',
  programId: newId('program'),
  status: 201,
  latencyMs: 23,
  replayed: false,
  ...extra,
})
