import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import * as z from 'zod/mini'
import type { makeBatchCommit } from '../../../core/batch-commit'
import { BATCH_LIMITS } from '../../../domain/batch'
import {
  type CheckedRows,
  checkBatchRows,
  PREVIEW_PROBLEMS_PER_PAGE,
  rowProblems,
} from '../../../domain/batch-rows'
import { InvalidIdempotencyKey, UploadNotFound, ValidationFailed } from '../../../domain/errors'
import { checkIdempotencyKey, GrantRequestSchema } from '../../../domain/grant-request.schema'
import type { ProgramRecord } from '../../../domain/program'
import { poolRemaining } from '../../../domain/program-shards'
import { bodyError, expected } from '../../../domain/request-fields.schema'
import { zodIssuesToFieldErrors } from '../../../domain/validation'
import { UPLOAD_ID, uploadKey } from '../../../stores/uploads.store'
import { toBatchView } from '../../batch-view'
import { json } from '../../http-handler'
import { manageHandler } from '../../manage-handler'
import type { JsonEvent } from '../../middleware'
import { checkProgramId, NO_STORE, programOfIssuer } from '../../program-of-issuer'
import type { BatchUploadDeps } from './grant-batch-upload.route'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/** What the commit needs (wiring/batches.deps.ts): the upload route's deps and the commit's use case. */
export type CreateGrantBatchDeps = BatchUploadDeps & {
  readonly commit: ReturnType<typeof makeBatchCommit>
}

/**
 * `{ csv | upload, reason?, dryRun, problemsFrom? }`: the CSV in the body (up to 1 MB) or the id of
 * one uploaded with CreateGrantBatchUpload (up to BATCH_LIMITS.maxUploadBytes); the batch's reason
 * with the grant API's own rule; for a dry run, the row its list of problems starts from.
 */
export const BatchBody = z.strictObject(
  {
    csv: z.optional(z.string({ error: expected('csv', 'a string (the CSV text)') })),
    upload: z.optional(
      z.string({ error: expected('upload', 'a string (the uploadId of an upload)') }),
    ),
    reason: z.optional(z.nullable(GrantRequestSchema.shape.reason)),
    dryRun: z.boolean({ error: expected('dryRun', 'true or false') }),
    problemsFrom: z.optional(
      z
        .number({ error: expected('problemsFrom', 'a row number (problemsCursor of a dry run)') })
        .check(
          z.int({ error: 'problemsFrom must be a whole row number' }),
          z.minimum(1, { error: 'problemsFrom must be a row number, 1 or more' }),
        ),
    ),
  },
  { error: bodyError },
)

/**
 * The dry run's answer: what a commit would do, row by row, and whether the pool suffices. Every
 * bad row and duplicate is listed, PREVIEW_PROBLEMS_PER_PAGE at a time from row `problemsFrom`:
 * `problemsCursor` is the row the next page starts from (send it as `problemsFrom`), null on the
 * last page. The counts are always the whole CSV's.
 */
export const batchPreview = (
  program: ProgramRecord,
  checked: CheckedRows,
  problemsFrom = 1,
  perPage = PREVIEW_PROBLEMS_PER_PAGE,
) => {
  const remaining = poolRemaining(program.pool, program.issued)
  const all = rowProblems(checked.rows).filter((p) => p.row >= problemsFrom)
  const page = all.slice(0, perPage)
  const next = all[perPage]
  return {
    object: 'grant_batch_preview',
    dryRun: true,
    programId: program.programId,
    mode: program.mode,
    programStatus: program.status,
    counts: {
      total: checked.rows.length,
      valid: checked.valid,
      invalid: checked.invalid,
      duplicates: checked.duplicates,
    },
    /** The sum of the valid rows' amounts. */
    amount: checked.amount,
    pool: {
      limited: remaining !== null,
      remaining,
      enough: remaining === null || checked.amount <= remaining,
      shortBy: remaining === null ? 0 : Math.max(0, checked.amount - remaining),
    },
    problems: page,
    problemsCursor: next === undefined ? null : next.row,
  }
}

/**
 * `POST /manage/issuers/{issuerId}/programs/{programId}/grant-batches` (admin): send to many.
 *
 * The rows come as `csv` (the text, up to 1 MB) or as `upload` (the id of a CSV uploaded with
 * CreateGrantBatchUpload, up to 32 MiB, read from the upload bucket: only this issuer's program's,
 * else `404 upload_not_found`); at most BATCH_LIMITS.maxRows rows either way.
 * `dryRun: true` checks every row with the grant API's rules, flags duplicates and compares the
 * total with the pool: `200`, nothing written; its problems a page at a time (`problemsFrom`,
 * `problemsCursor`). `dryRun: false` needs an `Idempotency-Key`: the rows
 * are stored (in chunks), then the batch with its `batch.commit` audit entry in one transaction,
 * then one message per chunk goes to the GrantBatchRows queue and the answer is `202` with the
 * batch; the worker (GrantBatchWorker) grants the rows in the background. A commit retried with the same key (or racing the first)
 * answers `200` with the same batch (`Idempotent-Replayed: true`) and sends its chunks again if
 * they were never all sent or it has stalled; the same key with another CSV, reason or program is `422 idempotency_key_reused`. The CSV is
 * compared by its content, so a retried commit of the same upload (or of the same rows as `csv`)
 * is the same request.
 */
export const makeCreateGrantBatchHandler = ({
  grants,
  uploads,
  commit,
  ...deps
}: CreateGrantBatchDeps) => {
  /**
   * The text of an upload of this issuer's program: the id names one key under both, so another
   * program's upload (or another issuer's) is not found, like one never sent or expired.
   */
  const uploadedCsv = async (
    issuerId: string,
    programId: string | undefined,
    uploadId: string,
    signal: AbortSignal,
  ) => {
    if (!UPLOAD_ID.test(uploadId)) throw new UploadNotFound(uploadId)
    const bytes = await uploads().read(
      uploadKey(issuerId, checkProgramId(programId), uploadId),
      BATCH_LIMITS.maxUploadBytes,
      { signal },
    )
    if (bytes === undefined) throw new UploadNotFound(uploadId)
    if (bytes === 'too-large') {
      throw new ValidationFailed([
        {
          field: 'upload',
          message: `the uploaded CSV must be at most ${BATCH_LIMITS.maxUploadBytes} bytes (32 MiB)`,
        },
      ])
    }
    try {
      // A leading byte-order mark (spreadsheets write one) is dropped, as the console's reader does.
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    } catch {
      throw new ValidationFailed([
        {
          field: 'upload',
          message:
            'the uploaded CSV is not UTF-8 text: save it as "CSV UTF-8" (comma delimited) and upload it again',
        },
      ])
    }
  }
  return manageHandler<Event>(
    'CreateGrantBatch',
    deps,
    async ({ event, deadline, requestId, actor, membership }) => {
      if (!actor || !membership) throw new Error('CreateGrantBatch needs the member who sends')
      const parsed = BatchBody.safeParse(event.body)
      if (!parsed.success) throw new ValidationFailed(zodIssuesToFieldErrors(parsed.error))
      const { dryRun, upload } = parsed.data
      const reason = parsed.data.reason ?? undefined
      if ((parsed.data.csv === undefined) === (upload === undefined)) {
        throw new ValidationFailed([
          {
            field: upload === undefined ? 'csv' : 'upload',
            message:
              'Send the rows either as csv (the CSV text, up to 1 MB) or as upload (the uploadId of a CSV uploaded with POST .../grant-batch-uploads): one of the two',
          },
        ])
      }
      const key = checkIdempotencyKey(event.headers['idempotency-key'])
      if (!dryRun && key === undefined) {
        throw new InvalidIdempotencyKey(
          'Committing a batch needs an Idempotency-Key header: send the same key when you retry, and the same batch is answered instead of a second one.',
        )
      }
      const signal = deadline.signal
      const csv =
        upload === undefined
          ? (parsed.data.csv as string)
          : await uploadedCsv(membership.issuerId, event.pathParameters?.programId, upload, signal)
      const checked =
        upload === undefined
          ? checkBatchRows(csv, reason)
          : checkBatchRows(csv, reason, { field: 'upload', maxBytes: BATCH_LIMITS.maxUploadBytes })
      const program = await programOfIssuer(
        grants,
        membership.issuerId,
        event.pathParameters?.programId,
        { signal },
      )
      if (dryRun) {
        return json(200, batchPreview(program, checked, parsed.data.problemsFrom), NO_STORE)
      }
      const { batch, replayed, now } = await commit({
        program,
        issuerId: membership.issuerId,
        actor,
        csv,
        reason,
        checked,
        idempotencyKey: key as string,
        requestId,
        signal,
      })
      const location = `/manage/issuers/${batch.issuerId}/programs/${batch.program}/grant-batches/${batch.batchId}`
      return replayed
        ? json(200, toBatchView(batch, now), {
            ...NO_STORE,
            location,
            'idempotent-replayed': 'true',
          })
        : json(202, toBatchView(batch, now), { ...NO_STORE, location })
    },
    { jsonBodyMaxBytes: BATCH_LIMITS.maxBodyBytes },
  )
}
