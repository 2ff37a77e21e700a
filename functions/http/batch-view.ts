import {
  type BatchChunk,
  type BatchRecord,
  batchStatus,
  type RowResult,
  rowState,
  type StoredRow,
} from '../domain/batch'

/** A batch as the management API shows it: its progress, not its rows. */
export const toBatchView = (batch: BatchRecord, now: number) => ({
  id: batch.batchId,
  object: 'grant_batch',
  programId: batch.program,
  mode: batch.mode,
  /** queued, running, done, or stalled (nothing moved for a minute: commit again to resume). */
  status: batchStatus(batch, now),
  reason: batch.reason ?? null,
  createdAt: batch.submittedAt,
  createdBy: batch.createdBy,
  updatedAt: batch.updatedAt,
  finishedAt: batch.finishedAt ?? null,
  counts: {
    total: batch.total,
    granted: batch.granted,
    failed: batch.failed,
    pending: Math.max(0, batch.total - batch.granted - batch.failed),
  },
  /** The sum of the valid rows' amounts. */
  amount: batch.amount,
})

/** One row with what became of it. */
export const toRowView = (batch: BatchRecord, row: StoredRow, result: RowResult | undefined) => {
  const state = rowState(row, result)
  return {
    row: row.row,
    email: row.email,
    name: row.name ?? null,
    amount: row.amount,
    reason: row.reason ?? batch.reason ?? null,
    status: state.status,
    ...(state.status === 'granted' ? { grantId: state.grantId } : {}),
    ...(state.status === 'failed' ? { code: state.code, message: state.message } : {}),
    ...(row.problem?.errors === undefined ? {} : { errors: row.problem.errors }),
    ...(row.problem?.duplicateOf === undefined ? {} : { duplicateOf: row.problem.duplicateOf }),
  }
}

export type RowView = ReturnType<typeof toRowView>

/** Where a page of rows starts: a chunk and a row in it. Opaque to callers. */
export type RowCursor = { chunk: number; offset: number }

export const encodeRowCursor = ({ chunk, offset }: RowCursor) =>
  Buffer.from(`${chunk}.${offset}`, 'utf8').toString('base64url')

export const decodeRowCursor = (cursor: string): RowCursor | undefined => {
  if (!/^[A-Za-z0-9_-]{1,20}$/.test(cursor)) return undefined
  const match = /^(\d{1,5})\.(\d{1,4})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))
  if (!match) return undefined
  const decoded = { chunk: Number(match[1]), offset: Number(match[2]) }
  return encodeRowCursor(decoded) === cursor ? decoded : undefined
}

/** Rows of loaded chunks from `start`, filtered, up to `limit`; where the next page starts. */
export const pageOfRows = (
  batch: BatchRecord,
  chunks: BatchChunk[],
  start: RowCursor,
  limit: number,
  status: 'pending' | 'granted' | 'failed' | undefined,
) => {
  const rows: RowView[] = []
  for (const chunk of chunks) {
    const from = chunk.index === start.chunk ? start.offset : 0
    for (let j = from; j < chunk.rows.length; j++) {
      if (rows.length === limit) return { rows, next: { chunk: chunk.index, offset: j } }
      const view = toRowView(batch, chunk.rows[j] as StoredRow, chunk.results[j])
      if (status === undefined || view.status === status) rows.push(view)
    }
  }
  return { rows, next: undefined }
}
