import {
  type BatchChunk,
  type BatchRecord,
  batchStatus,
  FINAL_BATCH_STATUSES,
  type RowResult,
  rowState,
  rowsLeft,
  type StoredRow,
} from '../domain/batch'
import { BATCH_COLUMNS, RESULT_COLUMN_PREFIX } from '../domain/batch-rows'
import { csvLine } from '../domain/csv'
import { absentAsNull } from './absent-as-null'

/**
 * How long a batch must have run before its rate is shown: rows are committed a chunk (up to 100
 * rows) at a time, several chunks at once, so the first second's rate counts a few chunks' rows
 * that took longer than that second; past 5 s their share is small.
 */
export const RATE_MIN_MS = 5_000

/** A page of a program's batches (ListGrantBatches). */
export const BATCH_PAGE = { default: 20, max: 100 } as const

/**
 * How fast the batch goes: rows tried (granted or failed by the worker; rows refused at commit and
 * canceled rows are not work) per second since its first committed rows (`startedAt`), until now,
 * or until it finished. `etaSeconds`: the rows left at that rate; 0 once finished; null while
 * there is no rate yet, a cancel is asked (the rest will not be tried) or the batch is stalled.
 */
export const batchPace = (batch: BatchRecord, now: number) => {
  const final = FINAL_BATCH_STATUSES.includes(batch.status)
  const tried = Math.max(0, batch.granted + batch.failed - batch.refused)
  const start = batch.startedAt === undefined ? Number.NaN : Date.parse(batch.startedAt)
  const end = final ? Date.parse(batch.finishedAt ?? batch.updatedAt) : now
  const elapsed = end - start
  const rate = tried > 0 && elapsed >= RATE_MIN_MS ? (tried * 1000) / elapsed : undefined
  const etaSeconds = final
    ? 0
    : rate === undefined ||
        batch.cancelRequestedAt !== undefined ||
        batchStatus(batch, now) === 'stalled'
      ? null
      : Math.ceil(rowsLeft(batch) / rate)
  return { rowsPerSecond: rate === undefined ? null : Math.round(rate * 10) / 10, etaSeconds }
}

/**
 * What the API calls a batch's state: queued, running, done, canceled; `canceling` once a cancel is
 * asked until the worker finishes it; `stalled` when nothing will move it (batchStatus).
 */
export const batchViewStatus = (batch: BatchRecord, now: number) => {
  const status = batchStatus(batch, now)
  if (FINAL_BATCH_STATUSES.includes(batch.status)) return status
  return batch.cancelRequestedAt === undefined ? status : 'canceling'
}

/** A batch as the management API shows it: its progress, not its rows. */
export const toBatchView = (batch: BatchRecord, now: number) => ({
  id: batch.batchId,
  object: 'grant_batch',
  programId: batch.program,
  mode: batch.mode,
  /**
   * queued, running, canceling, done, canceled, or stalled (a chunk in the dead letters, or nothing
   * moved for 10 minutes: commit again to resume).
   */
  status: batchViewStatus(batch, now),
  /** Nothing will move it as it is (also while canceling): see `status`. */
  stalled: batchStatus(batch, now) === 'stalled',
  reason: batch.reason ?? null,
  createdAt: batch.submittedAt,
  createdBy: batch.createdBy,
  updatedAt: batch.updatedAt,
  ...absentAsNull(batch, ['startedAt', 'finishedAt', 'cancelRequestedAt', 'canceledBy']),
  counts: {
    total: batch.total,
    granted: batch.granted,
    failed: batch.failed,
    canceled: batch.canceled ?? 0,
    pending: rowsLeft(batch),
  },
  /** Chunks whose message went to the dead-letter queue (a retried commit sends them again). */
  deadLetteredChunks: batch.deadLettered?.size ?? 0,
  ...batchPace(batch, now),
  /** The sum of the valid rows' amounts. */
  amount: batch.amount,
})

export type BatchView = ReturnType<typeof toBatchView>

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

/**
 * The columns of a batch's results as CSV (GetGrantBatch with `Accept: text/csv`): the row as sent
 * (the batch's reason where the row had none), then what became of it under `result_` names, which
 * a batch reads and ignores: the failed rows, fixed, can be sent again as a new batch as they are.
 */
export const BATCH_RESULT_CSV_COLUMNS = [
  ...BATCH_COLUMNS,
  ...(['row', 'status', 'grant_id', 'code', 'message'] as const).map(
    (name) => `${RESULT_COLUMN_PREFIX}${name}`,
  ),
]
export const batchResultCsvHeader = () => csvLine(BATCH_RESULT_CSV_COLUMNS)
export const batchResultCsvLine = (view: RowView) =>
  csvLine([
    view.email,
    view.amount,
    view.name,
    view.reason,
    view.row,
    view.status,
    'grantId' in view ? view.grantId : null,
    'code' in view ? view.code : null,
    'message' in view ? view.message : null,
  ])

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
  status: RowView['status'] | undefined,
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
