import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import * as z from 'zod/mini'
import { queueOf, type Runtime } from '../../../composition'
import { makeBatchCommit } from '../../../core/batch-commit'
import { BATCH_LIMITS } from '../../../domain/batch'
import { type CheckedRows, checkBatchRows, rowProblems } from '../../../domain/batch-rows'
import { InvalidIdempotencyKey, ValidationFailed } from '../../../domain/errors'
import { checkIdempotencyKey, GrantRequestSchema } from '../../../domain/grant-request.schema'
import type { ProgramRecord } from '../../../domain/program'
import { poolRemaining } from '../../../domain/program-shards'
import { zodIssuesToFieldErrors } from '../../../domain/validation'
import type { QueueSender } from '../../../runtime/queue-sender'
import { DynamoDbBatchStore } from '../../../stores/batches.dynamodb'
import { DynamoDbGrantStore } from '../../../stores/grants.dynamodb'
import { DynamoDbMembershipReader } from '../../../stores/memberships.dynamodb'
import { toBatchView } from '../../batch-view'
import { json } from '../../http-handler'
import { manageHandler } from '../../manage-handler'
import type { JsonEvent } from '../../middleware'
import { NO_STORE, programOfIssuer } from '../../program-of-issuer'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

const expected = (field: string, what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `${field} is required` : `${field} must be ${what}`

/** `{ csv, reason?, dryRun }`: the batch's reason with the grant API's own rule. */
export const BatchBody = z.strictObject(
  {
    csv: z.string({ error: expected('csv', 'a string (the CSV text)') }),
    reason: z.optional(z.nullable(GrantRequestSchema.shape.reason)),
    dryRun: z.boolean({ error: expected('dryRun', 'true or false') }),
  },
  {
    error: (issue) =>
      issue.code === 'invalid_type' ? 'The body must be a JSON object' : undefined,
  },
)

/** The dry run's answer: what a commit would do, row by row, and whether the pool suffices. */
export const batchPreview = (program: ProgramRecord, checked: CheckedRows) => {
  const remaining = poolRemaining(program.pool, program.issued)
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
    problems: rowProblems(checked.rows),
  }
}

/**
 * `POST /manage/issuers/{issuerId}/programs/{programId}/grant-batches` (admin): send to many.
 *
 * `dryRun: true` checks every row with the grant API's rules, flags duplicates and compares the
 * total with the pool: `200`, nothing written. `dryRun: false` needs an `Idempotency-Key`: the rows
 * are stored (in chunks), then the batch with its `batch.commit` audit entry in one transaction,
 * then one message per chunk goes to the GrantBatchRows queue and the answer is `202` with the
 * batch; the worker (GrantBatchWorker) grants the rows in the background. A commit retried with the same key (or racing the first)
 * answers `200` with the same batch (`Idempotent-Replayed: true`) and sends its chunks again if
 * they were never all sent or it has stalled; the same key with another CSV, reason or program is `422 idempotency_key_reused`.
 */
export const makeCreateGrantBatchHandler = (
  runtime: Runtime,
  deps: { queue?: QueueSender } = {},
) => {
  const { documentClient: client, config, clock } = runtime
  const memberships = new DynamoDbMembershipReader(client, config.tables)
  const grants = new DynamoDbGrantStore(client, config.tables)
  const batches = new DynamoDbBatchStore(client, config.tables)
  // The GrantBatchRows queue, looked up on the first commit: the local server builds every route,
  // and one without a pipeline still answers dry runs.
  const queue: QueueSender = deps.queue ?? {
    sendBatch: (entries) => queueOf(runtime, 'GrantBatchRows').sendBatch(entries),
  }
  const commit = makeBatchCommit({ batches, queue, clock: () => clock.now() })
  return manageHandler<Event>(
    'CreateGrantBatch',
    { memberships },
    async ({ event, deadline, requestId, actor, membership }) => {
      if (!actor || !membership) throw new Error('CreateGrantBatch needs the member who sends')
      const parsed = BatchBody.safeParse(event.body)
      if (!parsed.success) throw new ValidationFailed(zodIssuesToFieldErrors(parsed.error))
      const { csv, dryRun } = parsed.data
      const reason = parsed.data.reason ?? undefined
      const key = checkIdempotencyKey(event.headers['idempotency-key'])
      if (!dryRun && key === undefined) {
        throw new InvalidIdempotencyKey(
          'Committing a batch needs an Idempotency-Key header: send the same key when you retry, and the same batch is answered instead of a second one.',
        )
      }
      const checked = checkBatchRows(csv, reason)
      const signal = deadline.signal
      const program = await programOfIssuer(
        grants,
        membership.issuerId,
        event.pathParameters?.programId,
        { signal },
      )
      if (dryRun) return json(200, batchPreview(program, checked), NO_STORE)
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
