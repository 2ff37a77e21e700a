// zod/mini, as the other schemas: the GrantBatchWorker's cold start stays short.
import * as z from 'zod/mini'
import { BATCH_ID, type BatchRowsMessage } from '../domain/batch'

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
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch {
    return { problem: 'The message body is not JSON' }
  }
  const parsed = BatchRowsMessageSchema.safeParse(value)
  if (parsed.success) return { message: parsed.data }
  // Not an object at all names no batch either.
  const badId = parsed.error.issues.some((issue) => issue.path[0] !== 'chunk')
  return { problem: `The message has no valid ${badId ? 'batchId' : 'chunk'}` }
}
