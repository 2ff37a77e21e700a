import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda'
import { BATCH_WORK, consumerById, GRANT_BATCH_ROWS_QUEUE } from '../consumers'
import { auditEntry } from '../domain/audit-entry'
import {
  type BatchChunk,
  type BatchRecord,
  type BatchRowsMessage,
  FINAL_BATCH_STATUSES,
  type RowResult,
} from '../domain/batch'
import { logger } from '../runtime/logger'
import { retrying } from '../runtime/retry'
import * as RETRY from '../runtime/retry-policies'
import { sleep as realSleep } from '../runtime/sleep'
import type { BatchStore } from '../stores/batches.store'
import { readBatchRowsMessage } from './batch-rows-message.schema'
import {
  cancelWatch,
  chunkBudget,
  isTransient,
  makeSlots,
  rowGranter,
  runRows,
  type Slots,
} from './grant-batch-rows'
import type { GrantTokensInput, GrantTokensResult } from './grant-tokens'

export { WORKER_BUDGET } from './grant-batch-rows'

/** The longest a delivery runs (the worker function's timeout): who finished a batch is gone after. */
const FINISHER_MAX_MS = consumerById('GrantBatchWorker').timeoutSeconds * 1000

/** What Lambda gives a handler that the worker reads. */
export type WorkerContext = { awsRequestId: string; getRemainingTimeInMillis(): number }

export type BatchWorkerDeps = {
  batches: BatchStore
  grantTokens: (input: GrantTokensInput) => Promise<GrantTokensResult>
  /** E-mails the committer that their batch finished; absent: nobody is told. */
  notifyFinished?: (batch: BatchRecord, signal: AbortSignal) => Promise<unknown>
  clock?: () => number
  /**
   * The clock a delivery's time budget is measured on (Lambda's remaining time counts down on it):
   * Date.now; tests inject one they move, so running out of time never depends on the machine.
   */
  now?: () => number
  /** Rows granted at once in one delivery (BATCH_WORK.rowsInParallel). */
  rowsInParallel?: number
  /** Receives after which SQS moves a message to the dead letters (the queue's maxReceiveCount). */
  maxReceiveCount?: number
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  random?: () => number
}

/** A message no delivery can ever handle: it fails every time and ends in the dead letters. */
export class PoisonMessage extends Error {
  override readonly name = 'PoisonMessage'
}

/** The chunk message in a record; none: a PoisonMessage saying why. */
export const parseBatchRowsMessage = (body: string): BatchRowsMessage => {
  const read = readBatchRowsMessage(body)
  if ('problem' in read) throw new PoisonMessage(read.problem)
  return read.message
}

type ChunkOutcome = 'done' | 'again'

/** What the worker runs on: its dependencies, each option resolved. */
type WorkerOptions = Required<
  Pick<BatchWorkerDeps, 'clock' | 'now' | 'rowsInParallel' | 'sleep' | 'random'>
> &
  Pick<BatchWorkerDeps, 'batches' | 'grantTokens' | 'notifyFinished'>

/**
 * After a chunk is done: when every chunk is, the batch is finished (once, whichever delivery
 * gets there) and its committer e-mailed once: by the delivery that finished it; by a later one
 * only when that one has certainly ended (a function's timeout after the finish) without
 * recording the e-mail (it crashed, or the mail failed: its message comes back after the
 * visibility timeout, six times as long). Two duplicate deliveries finishing at once send one.
 */
const settler =
  ({ batches, notifyFinished, clock }: WorkerOptions) =>
  async (read: BatchRecord, context: WorkerContext, signal: AbortSignal) => {
    let batch = (await batches.getBatch(read.batchId, { signal })) ?? read
    let finishedHere = false
    if (!FINAL_BATCH_STATUSES.includes(batch.status)) {
      if ((batch.chunksDone ?? 0) < batch.chunks) return
      const status =
        batch.cancelRequestedAt !== undefined && (batch.canceled ?? 0) > 0 ? 'canceled' : 'done'
      const now = clock()
      const audit = auditEntry({
        issuerId: batch.issuerId,
        actor: { kind: 'person', ...batch.createdBy },
        action: 'batch.finish',
        target: { type: 'batch', id: batch.batchId },
        now,
        requestId: context.awsRequestId,
        details: {
          programId: batch.program,
          status,
          total: batch.total,
          granted: batch.granted,
          failed: batch.failed,
          canceled: batch.canceled ?? 0,
        },
      })
      const finished = await batches.finish(batch.batchId, status, now, audit, { signal })
      finishedHere = finished
      if (finished) {
        logger.info('batch finished', {
          batchId: batch.batchId,
          status,
          granted: batch.granted,
          failed: batch.failed,
          canceled: batch.canceled ?? 0,
        })
      }
      batch = (await batches.getBatch(read.batchId, { signal })) ?? batch
    }
    const finisherGone = clock() - Date.parse(batch.finishedAt ?? batch.updatedAt) > FINISHER_MAX_MS
    if (
      batch.notifiedAt === undefined &&
      notifyFinished !== undefined &&
      (finishedHere || finisherGone)
    ) {
      await notifyFinished(batch, signal)
      await batches.markNotified(batch.batchId, clock(), { signal })
    }
  }

/** One chunk message: its rows granted as far as time allows, and the results committed. */
const chunkHandler =
  (
    { batches, grantTokens, clock, now, rowsInParallel, sleep, random }: WorkerOptions,
    settle: ReturnType<typeof settler>,
  ) =>
  async (
    message: BatchRowsMessage,
    context: WorkerContext,
    /** Set when the message turns out to name no chunk of an existing batch. */
    seen: { strange: boolean },
    /** The invocation's rows in flight, shared by the chunks it was given. */
    slots: Slots,
  ): Promise<ChunkOutcome> => {
    const { batchId } = message
    const budget = chunkBudget(now(), context.getRemainingTimeInMillis(), rowsInParallel)
    const { stopAt, hardEnd, runSignal } = budget

    /** A store call, tried again while it fails for a passing reason and there is time. */
    const store = <T>(call: () => Promise<T>): Promise<T> =>
      retrying(call, {
        backoff: RETRY.batchStore,
        again: isTransient,
        until: hardEnd - 1_000,
        signal: runSignal,
        sleep,
        random,
        now,
      })

    const batch = await store(() => batches.getBatch(batchId, { signal: runSignal }))
    if (!batch) {
      seen.strange = true
      throw new PoisonMessage(`No batch ${batchId}`)
    }
    if (message.chunk >= batch.chunks) {
      seen.strange = true
      throw new PoisonMessage(
        `Batch ${batchId} has ${batch.chunks} chunks, not ${message.chunk + 1}`,
      )
    }
    if (FINAL_BATCH_STATUSES.includes(batch.status)) {
      await settle(batch, context, runSignal)
      return 'done'
    }
    const chunk: BatchChunk = await store(() =>
      batches.getChunk(batch, message.chunk, { signal: runSignal }),
    )
    if (!Array.isArray(chunk.rows) || !Array.isArray(chunk.results)) {
      // A damaged item: granting its "rows" would count nonsense as the batch's rows.
      throw new PoisonMessage(`Chunk ${message.chunk} of batch ${batchId} has no list of rows`)
    }
    const before = chunk.results.length
    if (before >= chunk.rows.length) {
      // Another delivery of this message finished it.
      await settle(batch, context, runSignal)
      return 'done'
    }

    const { results, fatal } = await runRows(chunk, before, {
      slots,
      rowsInParallel,
      stopAt,
      now,
      // A cancel stops the rows not yet started; it is looked for while the chunk runs.
      watch: cancelWatch(
        () => batches.getBatch(batchId, { signal: runSignal }),
        now,
        batch.cancelRequestedAt !== undefined,
      ),
      grantRow: rowGranter({ batch, budget, grantTokens, sleep, random, now }),
    })

    // The chunk's results from the front, as far as every row has one.
    let end = before
    while (end < chunk.rows.length && results[end] !== undefined) end++
    const done = results.slice(0, end) as RowResult[]
    const added = done.slice(before)
    const complete = end === chunk.rows.length
    if (added.length > 0) {
      const count = (status: RowResult['status']) => added.filter((r) => r.status === status).length
      const outcome = await store(() =>
        batches.commitChunk(
          {
            batch,
            index: message.chunk,
            before,
            results: done,
            granted: count('granted'),
            // Refused rows were counted at commit.
            failed: added.filter(
              (r, k) => r.status === 'failed' && !chunk.rows[before + k]?.problem,
            ).length,
            canceled: count('canceled'),
            complete,
            now: clock(),
          },
          { signal: runSignal },
        ),
      )
      if (outcome === 'chunk_changed') {
        // Another delivery committed this chunk meanwhile (or our own write's answer was lost): its
        // results stand; if it is not complete, the message comes back and goes on from there.
        const now = await store(() => batches.getChunk(batch, message.chunk, { signal: runSignal }))
        logger.info('batch worker: chunk changed under this delivery', {
          batchId,
          chunk: message.chunk,
        })
        if (now.results.length < now.rows.length) return 'again'
        await settle(batch, context, runSignal)
        return 'done'
      }
      if (outcome === 'final') return 'done'
    }
    if (fatal !== undefined) throw fatal
    if (!complete) return 'again'
    await settle(batch, context, runSignal)
    return 'done'
  }

/**
 * The send-to-many worker (GrantBatchWorker in functions/consumers.ts): an SQS consumer whose
 * message is one chunk of a batch (up to 100 rows). It grants the chunk's rows `rowsInParallel` at a
 * time through the grant API's own use case, each with the Idempotency-Key of its batch and row,
 * commits the chunk's results with the batch's counters in one transaction, and finishes the batch
 * (with its audit entry, and an e-mail to whoever committed it) when its last chunk is done.
 *
 * Everything it does may happen twice (SQS delivers at least once; a crashed run's message comes
 * back after the visibility timeout; a retried commit sends the chunks again): a row already granted
 * is a replay of the same grant, a chunk already committed is skipped, results are committed only
 * from what was read, a finished batch is left alone. So no row is granted twice and no row is
 * counted twice. It answers a partial batch response: a chunk it could not finish (out of time,
 * DynamoDB away) comes back; on its last allowed delivery the batch records it (`deadLettered`).
 */
export const makeBatchRowsWorker = (deps: BatchWorkerDeps) => {
  const options: WorkerOptions = {
    ...deps,
    clock: deps.clock ?? Date.now,
    now: deps.now ?? Date.now,
    rowsInParallel: deps.rowsInParallel ?? BATCH_WORK.rowsInParallel,
    sleep: deps.sleep ?? realSleep,
    random: deps.random ?? Math.random,
  }
  const { batches, rowsInParallel } = options
  const maxReceiveCount = deps.maxReceiveCount ?? GRANT_BATCH_ROWS_QUEUE.maxReceiveCount
  const handleChunk = chunkHandler(options, settler(options))

  const receiveCount = (record: SQSRecord) =>
    Number(record.attributes?.ApproximateReceiveCount ?? 1)

  return async (event: SQSEvent, context: WorkerContext): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = []
    // The chunks of one invocation run side by side over one pool of `rowsInParallel` rows: while
    // one chunk finishes its last rows or commits, the next one's rows fill the pool.
    const slots = makeSlots(rowsInParallel)
    const handleRecord = async (record: SQSRecord) => {
      let message: BatchRowsMessage | undefined
      let outcome: ChunkOutcome | 'failed'
      const seen = { strange: false }
      try {
        message = parseBatchRowsMessage(record.body)
        outcome = await handleChunk(message, context, seen, slots)
      } catch (error) {
        outcome = 'failed'
        logger.error('batch worker: a chunk failed', {
          messageId: record.messageId,
          ...(message ?? {}),
          receiveCount: receiveCount(record),
          error: error as Error,
        })
      }
      if (outcome === 'done') return
      batchItemFailures.push({ itemIdentifier: record.messageId })
      if (receiveCount(record) >= maxReceiveCount && message !== undefined && !seen.strange) {
        // SQS moves it to the dead letters now, instead of delivering it again: the batch shows it
        // (not a message naming no batch, or a chunk the batch does not have: nothing to show).
        logger.error('batch worker: a chunk goes to the dead letters', { ...message })
        await batches.markDeadLettered(message.batchId, message.chunk).catch(() => {})
      }
    }
    await Promise.all(event.Records.map(handleRecord))
    return { batchItemFailures }
  }
}
