/**
 * FROZEN for the bench (bench/benchmarks/batch-local.ts): the send-to-many worker as it was at
 * commit 264cf9e (functions/core/grant-batch-worker.ts and grant-batch-worker.factory.ts), before
 * issue 20 made it a queue consumer: one run holds the batch by a lease and grants its rows one at a
 * time, in order, through the grant API's use case, then hands over to itself (in-process here, as
 * npm start ran it: ./worker-invoker.ts). The code below is that commit's, unchanged but for its
 * imports (the lease store is ./lease-batch-store.ts, see there why it is frozen too) and the batch
 * type it reads (with the lease's fields). `makeFrozenBatchWorkerHandler` is the factory of that
 * commit without the AWS branch. Do not update: it is the baseline.
 */
import { randomUUID } from 'node:crypto'
import type { Runtime } from '../../functions/composition'
import { AccessCache } from '../../functions/core/access-cache'
import type { GrantTokensInput, GrantTokensResult } from '../../functions/core/grant-tokens'
import { makeGrantTokens } from '../../functions/core/grant-tokens'
import { auditEntry } from '../../functions/domain/audit-entry'
import {
  BATCH_ID,
  type RowResult,
  rowIdempotencyKey,
  type StoredRow,
} from '../../functions/domain/batch'
import { DomainError } from '../../functions/domain/errors'
import { startDeadline } from '../../functions/runtime/deadline'
import { logger } from '../../functions/runtime/logger'
import { sleep } from '../../functions/runtime/sleep'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import { transientKind } from '../../functions/stores/store-errors'
import { type LeasedBatch as BatchRecord, LeaseBatchStore } from './lease-batch-store'
import {
  type BatchWorkerEvent,
  inProcessInvoker,
  type WorkerHandler,
  type WorkerInvoker,
} from './worker-invoker'

/**
 * How a worker run spends its time. It stops starting rows `reserve` before its end (15 s, or 40%
 * of a short run), commits what it did, gives the batch up and invokes itself for the rest; one
 * row (with its retries) gets at most `rowBudgetMs`.
 */
export const WORKER_BUDGET = {
  reserveMs: 15_000,
  reserveShare: 0.4,
  rowBudgetMs: 7_500,
  /**
   * The lease: a run holds the batch until this long after its last commit (and never past its
   * own end, plus `leaseMarginMs`). A run that dies (a crash, a stopped npm start) so holds it at
   * most a minute. Exactly once never rests on the lease (a row is granted with its own key, a
   * chunk is committed only from the results it had): it only keeps runs from doing work twice.
   */
  leaseMs: 60_000,
  leaseMarginMs: 5_000,
} as const

export type WorkerDeps = {
  batches: LeaseBatchStore
  grantTokens: (input: GrantTokensInput) => Promise<GrantTokensResult>
  /** Starts the next run (this same function, asynchronously). */
  invokeSelf: (context: Parameters<WorkerHandler>[1]) => WorkerInvoker
  clock?: () => number
}

export type WorkerOutcome =
  | { outcome: 'ignored' | 'not_claimed' }
  | { outcome: 'done' | 'handed_over' | 'lease_lost'; rows: number }

/** Thrown when a run could do nothing at all (DynamoDB away): Lambda retries the event later. */
export class NoProgress extends Error {}

/** Busy, away or in conflict: worth another try (a deadline's abort included). */
const isTransient = (error: unknown) =>
  error instanceof DomainError
    ? error.code === 'service_unavailable' || error.code === 'request_conflict'
    : transientKind(error) !== undefined

const backoff = (attempt: number) => Math.min(2_000, 25 * 2 ** attempt) * (0.5 + Math.random() / 2)

/**
 * The batch worker: takes the batch (a lease, so one run at a time works on it), grants its rows
 * in order through the grant API's own use case, each with the Idempotency-Key of its batch and
 * row, and commits each chunk's results with the batch's counters. Everything it does may be done
 * again (a retried event, a second run, a resumed batch): a row already granted is a replay, a
 * chunk already committed is skipped, a finished batch is left alone. So no row is granted twice
 * and no row is counted twice, whatever fails when.
 */
export const makeBatchWorker =
  ({ batches, grantTokens, invokeSelf, clock = Date.now }: WorkerDeps): WorkerHandler =>
  async (event, context): Promise<WorkerOutcome> => {
    const given = (event as Partial<BatchWorkerEvent> | undefined)?.batchId
    if (typeof given !== 'string' || !BATCH_ID.test(given)) {
      logger.error('batch worker event without a valid batchId', { event })
      return { outcome: 'ignored' }
    }
    const batchId: string = given
    const started = Date.now()
    const total = context.getRemainingTimeInMillis()
    const reserve = Math.min(WORKER_BUDGET.reserveMs, total * WORKER_BUDGET.reserveShare)
    /** No row is started after this. */
    const stopAt = started + total - reserve
    /** No call is waited for after this. */
    const hardEnd = started + total - Math.min(1_000, total * 0.1)
    const runSignal = AbortSignal.timeout(Math.max(1, hardEnd - started))
    const token = randomUUID()
    const leaseUntil = () =>
      clock() +
      Math.min(WORKER_BUDGET.leaseMs, started + total - Date.now() + WORKER_BUDGET.leaseMarginMs)

    /** A store call, tried again while it fails for a passing reason and there is time. */
    const store = async <T>(call: () => Promise<T>): Promise<T> => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await call()
        } catch (error) {
          const pause = backoff(attempt)
          if (!isTransient(error) || Date.now() + pause > hardEnd - 1_000) throw error
          await sleep(pause, runSignal)
        }
      }
    }

    /** One row through the grant use case, until it has an answer that will not change. */
    const grantRow = async (batch: BatchRecord, row: StoredRow): Promise<RowResult | 'time_up'> => {
      for (let attempt = 0; ; attempt++) {
        const deadline = startDeadline({
          getRemainingTimeInMillis: () =>
            Math.max(0, Math.min(WORKER_BUDGET.rowBudgetMs, hardEnd - Date.now())),
        })
        try {
          const { grant } = await grantTokens({
            member: {
              issuerId: batch.issuerId,
              sentBy: batch.createdBy,
              mode: batch.mode,
              batch: { batchId, row: row.row },
            },
            programId: batch.program,
            idempotencyKey: rowIdempotencyKey(batchId, row.row),
            body: {
              recipient: {
                email: row.email,
                ...(row.name === undefined ? {} : { name: row.name }),
              },
              reason: row.reason ?? batch.reason,
              amount: row.amount,
            },
            deadline,
          })
          return { status: 'granted', grantId: grant.grantId }
        } catch (error) {
          if (!isTransient(error)) {
            // The grant's own refusal (validation, pool, program): this row fails.
            if (error instanceof DomainError) {
              return { status: 'failed', code: error.code, message: error.detail }
            }
            // Unexpected: this run fails, and Lambda tries the event again.
            throw error
          }
          const pause = backoff(attempt)
          if (Date.now() + pause >= stopAt) return 'time_up'
          await sleep(pause, runSignal)
        } finally {
          deadline.dispose()
        }
      }
    }

    /** The batch's rows from its first unfinished chunk on, while there is time. */
    const work = async (batch: BatchRecord): Promise<WorkerOutcome> => {
      let rowsDone = 0
      let index = batch.nextChunk
      let timeUp = false
      while (index < batch.chunks && !timeUp) {
        const chunk = await store(() => batches.getChunk(batch, index, { signal: runSignal }))
        const results = [...chunk.results]
        const before = results.length
        let granted = 0
        let failed = 0
        for (let j = before; j < chunk.rows.length; j++) {
          if (Date.now() >= stopAt) {
            timeUp = true
            break
          }
          const row = chunk.rows[j] as StoredRow
          if (row.problem !== undefined) {
            // Refused at commit: already counted in `failed`.
            results.push({ status: 'failed', code: row.problem.code, message: row.problem.message })
            continue
          }
          const result = await grantRow(batch, row)
          if (result === 'time_up') {
            timeUp = true
            break
          }
          results.push(result)
          if (result.status === 'granted') granted++
          else failed++
        }
        const complete = results.length === chunk.rows.length
        if (results.length > before) {
          const chunkIndex = index
          const outcome = await store(() =>
            batches.commitProgress(
              {
                batch,
                index: chunkIndex,
                before,
                results,
                granted,
                failed,
                nextChunk: complete ? chunkIndex + 1 : chunkIndex,
                token,
                now: clock(),
                until: leaseUntil(),
              },
              { signal: runSignal },
            ),
          )
          if (outcome.kind === 'lease_lost') {
            logger.warn('batch worker: another run took the batch', { batchId })
            return { outcome: 'lease_lost', rows: rowsDone }
          }
          if (outcome.kind === 'chunk_changed') {
            // Our own commit whose answer was lost, if the chunk now holds exactly our results.
            const now = await store(() =>
              batches.getChunk(batch, chunkIndex, { signal: runSignal }),
            )
            if (now.results.length !== results.length) {
              logger.warn('batch worker: chunk changed under the lease', { batchId, chunkIndex })
              return { outcome: 'lease_lost', rows: rowsDone }
            }
          }
          rowsDone += results.length - before
        }
        if (complete) index++
      }

      if (index >= batch.chunks) {
        const latest =
          (await store(() => batches.getBatch(batchId, { signal: runSignal }))) ?? batch
        const audit = auditEntry({
          issuerId: batch.issuerId,
          actor: { kind: 'person', ...batch.createdBy },
          action: 'batch.finish',
          target: { type: 'batch', id: batchId },
          now: clock(),
          requestId: context.awsRequestId,
          details: {
            programId: batch.program,
            total: latest.total,
            granted: latest.granted,
            failed: latest.failed,
          },
        })
        await store(() => batches.finish(batchId, token, clock(), audit, { signal: runSignal }))
        logger.info('batch done', { batchId, granted: latest.granted, failed: latest.failed })
        return { outcome: 'done', rows: rowsDone }
      }
      if (rowsDone === 0) {
        // Nothing moved (DynamoDB away): fail, so Lambda retries the event after a pause rather
        // than this run starting the next one at once.
        throw new NoProgress(`Batch ${batchId}: no row could be done in this run`)
      }
      // Out of time with rows left: give the batch up and start the next run.
      await store(() => batches.release(batchId, token, { signal: runSignal }))
      await invokeSelf(context)({ batchId }, { signal: runSignal })
      logger.info('batch worker handed over', { batchId, rows: rowsDone, nextChunk: index })
      return { outcome: 'handed_over', rows: rowsDone }
    }

    const claimed = await store(() =>
      batches.claim(batchId, token, leaseUntil(), clock(), {
        signal: runSignal,
      }),
    )
    if (!claimed) {
      logger.info('batch worker: batch done or held by another run', { batchId })
      return { outcome: 'not_claimed' }
    }
    try {
      return await work(claimed)
    } catch (error) {
      // The next run may take the batch at once (best effort: with DynamoDB away the lease simply
      // runs out).
      await batches.release(batchId, token).catch(() => {})
      throw error
    }
  }

/**
 * 264cf9e's makeBatchWorkerHandler (functions/core/grant-batch-worker.factory.ts) without its AWS
 * branch: the grant use case built as today's worker builds it, the next run started in-process.
 */
export const makeFrozenBatchWorkerHandler = (runtime: Runtime): WorkerHandler => {
  const { documentClient, config } = runtime
  const grants = new DynamoDbGrantStore(documentClient, config.tables)
  let self: WorkerInvoker | undefined
  const handler: WorkerHandler = makeBatchWorker({
    batches: new LeaseBatchStore(documentClient, config.tables),
    grantTokens: makeGrantTokens({
      store: grants,
      access: new AccessCache(grants, { now: () => runtime.monotonic.now() }),
      clock: () => runtime.clock.now(),
    }),
    invokeSelf: () => {
      self ??= inProcessInvoker(async () => handler)
      return self
    },
    clock: () => runtime.clock.now(),
  })
  return handler
}
