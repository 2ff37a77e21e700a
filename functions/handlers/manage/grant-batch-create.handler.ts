import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import * as z from 'zod/mini'
import { config } from '../../config'
import {
  BATCH_LIMITS,
  type BatchRecord,
  batchIdFor,
  batchKey,
  batchRequestHash,
  packChunks,
} from '../../domain/batch'
import {
  IdempotencyKeyReused,
  InvalidIdempotencyKey,
  ProgramInactive,
  ValidationFailed,
} from '../../domain/errors'
import { GrantRequestSchema, IdempotencyKeySchema, LIMITS } from '../../domain/grant-request.schema'
import { poolRemaining } from '../../domain/program-shards'
import { ENV } from '../../env-names'
import { type CheckedRows, checkBatchRows, rowProblems } from '../../http/batch-rows'
import { toBatchView } from '../../http/batch-view'
import { json } from '../../http/http-handler'
import { manageHandler } from '../../http/manage-handler'
import type { JsonEvent } from '../../http/middleware'
import { zodIssuesToFieldErrors } from '../../http/problem'
import { NO_STORE, programOfIssuer } from '../../http/program-of-issuer'
import { clock } from '../../runtime/clock'
import { invokeSigning, type WorkerInvoker, workerInvoker } from '../../runtime/worker-invoker'
import { auditEntry } from '../../stores/audit'
import { DynamoDbBatchStore } from '../../stores/batches.dynamodb'
import { documentClient, dynamodb } from '../../stores/dynamodb-client'
import { DynamoDbGrantStore, type TableNames } from '../../stores/grants.dynamodb'
import type { ProgramRecord } from '../../stores/grants.store'
import { DynamoDbMembershipReader } from '../../stores/memberships.dynamodb'

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
 * then the worker is started asynchronously and the answer is `202` with the batch; the worker
 * grants the rows in the background. A commit retried with the same key (or racing the first)
 * answers `200` with the same batch (`Idempotent-Replayed: true`) and resumes it if it had
 * stalled; the same key with another CSV, reason or program is `422 idempotency_key_reused`.
 */
export const makeCreateGrantBatchHandler = (
  client: DynamoDBDocumentClient,
  tables: TableNames & { memberships: string; audit: string },
  invoke: WorkerInvoker,
) => {
  const memberships = new DynamoDbMembershipReader(client, tables)
  const grants = new DynamoDbGrantStore(client, tables)
  const batches = new DynamoDbBatchStore(client, tables)
  return manageHandler<Event>(
    'CreateGrantBatch',
    { memberships },
    async ({ event, deadline, requestId, actor, membership }) => {
      if (!actor || !membership) throw new Error('CreateGrantBatch needs the member who sends')
      const parsed = BatchBody.safeParse(event.body)
      if (!parsed.success) throw new ValidationFailed(zodIssuesToFieldErrors(parsed.error))
      const { csv, dryRun } = parsed.data
      const reason = parsed.data.reason ?? undefined
      const key = event.headers['idempotency-key']
      if (key !== undefined && !IdempotencyKeySchema.safeParse(key).success) {
        throw new InvalidIdempotencyKey(
          `Idempotency-Key must be 1 to ${LIMITS.maxIdempotencyKeyLength} printable ASCII characters.`,
        )
      }
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
      if (program.status !== 'active') throw new ProgramInactive(program.status)

      const issuerId = membership.issuerId
      const batchId = batchIdFor(issuerId, key as string)
      const requestHash = batchRequestHash(program.programId, csv, reason)
      const location = `/manage/issuers/${issuerId}/programs/${program.programId}/grant-batches/${batchId}`
      /** A batch that already exists for this key: the same one again, resumed if stalled. */
      const replay = async (existing: BatchRecord) => {
        if (existing.requestHash !== requestHash) throw new IdempotencyKeyReused()
        if (existing.status !== 'done' && existing.leaseUntil <= clock.now()) {
          await invoke({ batchId }, { signal })
        }
        return json(200, toBatchView(existing, clock.now()), {
          ...NO_STORE,
          location,
          'idempotent-replayed': 'true',
        })
      }

      const existing = await batches.getBatch(batchId, { signal })
      if (existing) return replay(existing)

      const chunkPrefix = requestHash.slice(0, 12)
      const chunks = packChunks(checked.rows)
      await batches.putChunks(batchId, chunkPrefix, chunks, { signal })
      const now = clock.now()
      const at = new Date(now).toISOString()
      const refused = checked.invalid + checked.duplicates
      const batch: BatchRecord = {
        grantId: batchKey(batchId),
        itemType: 'grantBatch',
        batchId,
        issuerId,
        program: program.programId,
        mode: program.mode,
        ...(reason === undefined ? {} : { reason }),
        idempotencyKey: key as string,
        requestHash,
        chunkPrefix,
        chunks: chunks.length,
        createdBy: { sub: actor.sub, email: actor.email },
        submittedAt: at,
        total: checked.rows.length,
        refused,
        amount: checked.amount,
        granted: 0,
        failed: refused,
        nextChunk: 0,
        status: 'queued',
        leaseUntil: 0,
        updatedAt: at,
        requestId,
      }
      const audit = auditEntry({
        issuerId,
        actor,
        action: 'batch.commit',
        target: { type: 'batch', id: batchId },
        now,
        requestId,
        details: {
          programId: program.programId,
          rows: checked.rows.length,
          valid: checked.valid,
          refused,
          amount: checked.amount,
        },
      })
      const outcome = await batches.createBatch(batch, audit, { signal })
      if (outcome.kind === 'exists') return replay(outcome.existing)
      // If this fails the answer is 503, and the commit retried with the same key starts it.
      await invoke({ batchId }, { signal })
      return json(202, toBatchView(batch, now), { ...NO_STORE, location })
    },
    { jsonBodyMaxBytes: BATCH_LIMITS.maxBodyBytes },
  )
}

export const handler = makeCreateGrantBatchHandler(
  documentClient,
  config.tables,
  workerInvoker({
    functionName: process.env[ENV.grantBatchWorkerFunction] || undefined,
    env: process.env,
    aws: invokeSigning(dynamodb),
    loadLocal: async () => (await import('../grant-batch-worker.handler')).handler,
  }),
)
