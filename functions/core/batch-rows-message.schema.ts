// zod/mini, as the other schemas: the GrantBatchWorker's cold start stays short.
import * as z from 'zod/mini'
import { BATCH_ID, type BatchRowsMessage } from '../domain/batch'
import { readJsonWith } from '../domain/validation'

/**
 * The message of the GrantBatchRows queue as its producer writes it (batch-commit.ts sendChunks,
 * also on a cancel's resend): one chunk of one batch.
 */
export const BatchRowsMessageSchema = z.object({
  batchId: z.string().check(z.regex(BATCH_ID)),
  chunk: z.int().check(z.minimum(0)),
})

/** The chunk message in a body, or why it is none (a sentence for the worker's log). */
export const readBatchRowsMessage = (
  body: string,
): { message: BatchRowsMessage } | { problem: string } => {
  const read = readJsonWith(BatchRowsMessageSchema, body)
  if (read.ok) return { message: read.value }
  if (read.issues === undefined) return { problem: 'The message body is not JSON' }
  // Not an object at all names no batch either.
  const badId = read.issues.some((issue) => issue.path[0] !== 'chunk')
  return { problem: `The message has no valid ${badId ? 'batchId' : 'chunk'}` }
}
