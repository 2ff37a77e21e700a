import type { DynamoDBBatchResponse } from 'aws-lambda'
import { logger } from '../runtime/logger'
import type { TableChange } from '../stores/stream-records.store'

/**
 * A stream reader's partial batch response (ReportBatchItemFailures): the first failed record in
 * stream order, so Lambda (or local/stream-poller.ts) retries from there and nothing after it is
 * lost; none failed, an empty list.
 */
export const streamBatchResponse = (
  reader: string,
  changes: readonly TableChange[],
  failedRecords: ReadonlySet<string>,
): DynamoDBBatchResponse => {
  const first = changes.find(
    (c) => c.sequenceNumber !== undefined && failedRecords.has(c.sequenceNumber),
  )?.sequenceNumber
  if (first === undefined) return { batchItemFailures: [] }
  logger.warn(`${reader}: records left for a retry`, { from: first, failed: failedRecords.size })
  return { batchItemFailures: [{ itemIdentifier: first }] }
}
