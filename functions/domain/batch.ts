import { createHash } from 'node:crypto'
import type { Mode } from './api-key'
import type { FieldError } from './errors'
import type { GrantSender } from './grant'
import { base32 } from './ids'
import { decodeCursor, encodeCursor, ISO_TIME } from './page-cursor'

/**
 * Send to many: a batch of grants from a CSV, its rows, and what became of each. The records and
 * the rules on them, for the routes (functions/http, functions/handlers/manage), the store and the worker.
 *
 * Where it lives: in the grants table, beside the grants, under keys no grant can have (like the
 * API keys table's key-id pointers): the batch itself at `batch#<batchId>`, its rows in chunks at
 * `batch#<batchId>#<request hash prefix>#<chunk>`. A grant id is `gr_` and 26 base32 characters,
 * so no grant read can reach one. None has a `programId` attribute (the program is `program`), so
 * none is ever in the `byProgram` index and no grant listing sees one.
 */
export const BATCH_LIMITS = {
  /** Rows in one batch, however it arrives. */
  maxRows: 50_000,
  /** A CSV sent in the JSON body (the API's `csv`); larger ones are uploaded (`upload`). */
  maxCsvBytes: 1024 * 1024,
  /**
   * A CSV uploaded to the upload bucket with a presigned POST (`content-length-range`): 50,000 rows
   * with long reasons and names.
   */
  maxUploadBytes: 32 * 1024 * 1024,
  /**
   * The JSON body that carries the CSV: a 1 MB CSV full of quotes and line breaks doubles when
   * JSON-escaped. Well inside API Gateway's 10 MB and Lambda's 6 MB.
   */
  maxBodyBytes: 3 * 1024 * 1024,
  /** A chunk holds at most this many rows and about this many bytes (a DynamoDB item: 400 KB). */
  chunkRows: 100,
  chunkBytes: 64 * 1024,
  /** A value of a refused row is kept (to show it) up to this many characters. */
  keptChars: 300,
} as const

export const BATCH_ROW_CODES = ['validation_failed', 'duplicate_row'] as const

/** Why a row was refused before any grant was tried (at commit, as in the dry run). */
export type RowProblem = {
  code: (typeof BATCH_ROW_CODES)[number]
  message: string
  errors?: FieldError[]
  /** For `duplicate_row`: the row it repeats. */
  duplicateOf?: number
}

/** One CSV row as stored: the normalised values of a valid row, what was typed for a refused one. */
export type StoredRow = {
  row: number
  email: string
  name?: string
  /** Absent: the batch's reason. */
  reason?: string
  amount: number | string
  problem?: RowProblem
}

export type RowResult =
  | { status: 'granted'; grantId: string }
  | { status: 'failed'; code: string; message: string }
  /** The batch was canceled before the row was tried: never granted. */
  | { status: 'canceled' }

/** Item of a chunk of rows; `results` grows from the front as the worker goes. */
export type BatchChunk = {
  grantId: string
  itemType: 'grantBatchChunk'
  batchId: string
  index: number
  rows: StoredRow[]
  results: RowResult[]
}

/** `done` and `canceled` are final; `canceled`: canceled before every row was tried. */
export type BatchStatus = 'queued' | 'running' | 'done' | 'canceled'

export const FINAL_BATCH_STATUSES: readonly BatchStatus[] = ['done', 'canceled']

/** Item of the batch itself. */
export type BatchRecord = {
  grantId: string
  itemType: 'grantBatch'
  batchId: string
  issuerId: string
  /** Not `programId`: see above. */
  program: string
  mode: Mode
  /** The batch's reason, for rows without their own. */
  reason?: string
  idempotencyKey: string
  /** SHA-256 of program, CSV and reason: a retried commit with another body is refused. */
  requestHash: string
  /** Where the chunks are: `batch#<batchId>#<chunkPrefix>#0000` ... */
  chunkPrefix: string
  chunks: number
  createdBy: GrantSender
  /** Not `createdAt`: see above. */
  submittedAt: string
  total: number
  /** Rows refused at commit (invalid, duplicate); counted in `failed` from the start. */
  refused: number
  /** The sum of the valid rows' amounts. */
  amount: number
  granted: number
  failed: number
  /** Rows never tried because the batch was canceled (absent: 0). */
  canceled?: number
  /** Chunks whose every row has its result (the worker adds 1 as it completes one). */
  chunksDone?: number
  /** Set once every chunk's message has been handed to the queue (a retried commit resends otherwise). */
  enqueuedAt?: string
  /** When the first rows were committed: rows per second and the time left count from here. */
  startedAt?: string
  /** Asked to stop: rows not yet tried are not granted (a row being granted at that moment may be). */
  cancelRequestedAt?: string
  canceledBy?: GrantSender
  /**
   * Chunks whose message failed its last delivery (it is now in the dead-letter queue): the batch
   * shows them; a redrive, or a retried commit, sends them again.
   */
  deadLettered?: Set<number>
  /** The committer was e-mailed that the batch finished. */
  notifiedAt?: string
  status: BatchStatus
  /** Items written before issue 20 (the self-invoking worker's lease): read, never written. */
  nextChunk?: number
  leaseToken?: string
  leaseUntil?: number
  /**
   * The listing: `programSlot` = `batchListSlot(program)` and `createdAt` = submittedAt put the batch
   * in the `byProgramSlot` index under a key no grant has (a grant's slot ends in a number), so a
   * program's batches list newest first and no grant listing sees one. Absent on older batches.
   */
  programSlot?: string
  createdAt?: string
  updatedAt: string
  finishedAt?: string
  /** The commit's request id (audit). */
  requestId?: string
}

export const BATCH_PREFIX = 'batch#'
/** A program's batches in the `byProgramSlot` index (see BatchRecord.programSlot). */
export const batchListSlot = (programId: string) => `${programId}#batches`

/** The message of the GrantBatchRows queue: one chunk of one batch (functions/consumers.ts). */
export type BatchRowsMessage = { batchId: string; chunk: number }
export const batchKey = (batchId: string) => `${BATCH_PREFIX}${batchId}`
export const chunkKey = (batchId: string, chunkPrefix: string, index: number) =>
  `${BATCH_PREFIX}${batchId}#${chunkPrefix}#${String(index).padStart(4, '0')}`

export const BATCH_ID = /^bat_[0-9a-hjkmnp-tv-z]{26}$/

/** Where a page of a program's batches ends: the last batch's `createdAt` and id. Opaque to callers. */
export type BatchCursor = { createdAt: string; batchId: string }

export const encodeBatchCursor = ({ createdAt, batchId }: BatchCursor) =>
  encodeCursor(createdAt, batchId)

/** The position a cursor stands for, or undefined when it is not one encodeBatchCursor made. */
export const decodeBatchCursor = (cursor: string): BatchCursor | undefined => {
  const parts = decodeCursor(cursor, [ISO_TIME, BATCH_ID])
  return parts && { createdAt: parts[0], batchId: parts[1] }
}

/**
 * The batch id of a commit: a pure function of the issuer and the Idempotency-Key (scoped to the
 * issuer, as a grant's is to issuer and mode), so a retried commit, or one racing the first,
 * aims at the same batch and cannot make a second.
 */
export const batchIdFor = (issuerId: string, idempotencyKey: string) =>
  `bat_${base32(
    createHash('sha256').update(`${issuerId}\nbatch\n${idempotencyKey}`, 'utf8').digest(),
    26,
  )}`

export const batchRequestHash = (programId: string, csv: string, reason: string | undefined) =>
  createHash('sha256')
    .update(JSON.stringify([programId, csv, reason ?? null]))
    .digest('hex')

/**
 * The Idempotency-Key a row is granted with: derived from the batch and the row, so however often
 * a row is tried (a retry, a second worker, a resumed batch) it aims at one grant item, and no row
 * is ever granted twice.
 */
export const rowIdempotencyKey = (batchId: string, row: number) => `batch:${batchId}:row:${row}`

/**
 * The chunks of a batch's rows: at most `chunkRows` rows and about `chunkBytes` each. Tests pass
 * fewer rows a chunk, to give a small batch the many chunks a large one has.
 */
export const packChunks = (
  rows: StoredRow[],
  chunkRows: number = BATCH_LIMITS.chunkRows,
): StoredRow[][] => {
  const chunks: StoredRow[][] = []
  let current: StoredRow[] = []
  let bytes = 0
  for (const row of rows) {
    const size = Buffer.byteLength(JSON.stringify(row)) + 16
    if (
      current.length > 0 &&
      (current.length >= chunkRows || bytes + size > BATCH_LIMITS.chunkBytes)
    ) {
      chunks.push(current)
      current = []
      bytes = 0
    }
    current.push(row)
    bytes += size
  }
  if (current.length > 0) chunks.push(current)
  return chunks
}

/** A stored row's state: its result once the worker got to it, else refused or pending. */
export const rowState = (row: StoredRow, result: RowResult | undefined) =>
  result !== undefined
    ? result
    : row.problem !== undefined
      ? ({ status: 'failed', code: row.problem.code, message: row.problem.message } as const)
      : ({ status: 'pending' } as const)

/**
 * How long an unfinished batch may go without progress before it counts as stalled. Rows are
 * committed a chunk at a time, every second or so while a batch runs; a batch queued behind other
 * batches of the same stage waits a few minutes at most (50,000 rows at 1,000 a second).
 */
export const STALLED_AFTER_MS = 10 * 60_000

/** A batch's rows not yet tried: what is left to do. */
export const rowsLeft = (batch: BatchRecord) =>
  Math.max(0, batch.total - batch.granted - batch.failed - (batch.canceled ?? 0))

/**
 * `stalled`: unfinished, and a chunk's message went to the dead-letter queue, or its messages were
 * never all handed to the queue, or nothing moved for STALLED_AFTER_MS. A retried commit (the same
 * Idempotency-Key and CSV) sends the unfinished chunks again; so does a redrive of the dead letters.
 */
export const batchStatus = (batch: BatchRecord, now: number): BatchStatus | 'stalled' => {
  if (FINAL_BATCH_STATUSES.includes(batch.status)) return batch.status
  const idle = Date.parse(batch.updatedAt) < now - STALLED_AFTER_MS
  const neverQueued = batch.enqueuedAt === undefined && Date.parse(batch.submittedAt) < now - 60_000
  return (batch.deadLettered?.size ?? 0) > 0 || neverQueued || idle ? 'stalled' : batch.status
}
