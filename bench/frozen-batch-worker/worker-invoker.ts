/**
 * FROZEN for the bench (bench/benchmarks/batch-local.ts): the in-process invoker of the batch
 * worker as it was at commit 264cf9e (functions/runtime/worker-invoker.ts, before issue 20 deleted
 * it), only the parts `npm start` used: the worker ran in this process after the commit answered,
 * as an asynchronous Lambda invocation, and handed over to itself the same way. The hand-signed
 * Lambda Invoke (AWS only) is left out: the bench runs locally. Do not update: it is the baseline.
 */
import type { Context } from 'aws-lambda'
import { logger } from '../../functions/runtime/logger'

/** What the batch worker is invoked with: the batch's id, nothing else (an async event: <= 1 MB). */
export type BatchWorkerEvent = { batchId: string }

/** Starts the worker on a batch and returns at once (an asynchronous invocation). */
export type WorkerInvoker = (
  event: BatchWorkerEvent,
  options?: { signal?: AbortSignal },
) => Promise<void>

/** The worker's handler as Lambda calls it. */
export type WorkerHandler = (
  event: BatchWorkerEvent,
  context: Pick<Context, 'getRemainingTimeInMillis' | 'awsRequestId' | 'functionName'>,
) => Promise<unknown>

/**
 * The worker function of 264cf9e (functions/worker-function.ts, deleted by issue 20): its id and
 * timeout, all the invoker read of it.
 */
const GRANT_BATCH_WORKER = { id: 'GrantBatchWorker', timeoutSeconds: 300 } as const

/**
 * How the worker runs in-process (npm start, tests): as Lambda runs an asynchronous event. The
 * run's context counts down from `timeoutMs` (the worker function's timeout in AWS); a run that
 * fails is tried again after each of `retryDelaysMs` (Lambda: twice, after about 1 and 2 minutes).
 * Tests shorten both.
 */
export const LOCAL_WORKER = {
  timeoutMs: GRANT_BATCH_WORKER.timeoutSeconds * 1000,
  retryDelaysMs: [1_000, 2_000] as number[],
}

const localRuns = new Set<Promise<void>>()

/** Resolves once no in-process worker run is going on or waiting for a retry (tests). */
export const localWorkersIdle = async () => {
  while (localRuns.size > 0) await Promise.allSettled([...localRuns])
}

let localRunCount = 0

/**
 * The same worker, run in this process after the invoking request has answered: what `npm start`
 * and the tests use for an asynchronous Lambda invocation.
 */
export const inProcessInvoker =
  (load: () => Promise<WorkerHandler>): WorkerInvoker =>
  async (event) => {
    const handler = await load()
    const run = (async () => {
      // After the invoking request answered, as an asynchronous invocation.
      await new Promise((resolve) => setImmediate(resolve))
      for (let attempt = 0; ; attempt++) {
        const started = Date.now()
        const requestId = `local-worker-${++localRunCount}`
        try {
          await handler(event, {
            awsRequestId: requestId,
            functionName: GRANT_BATCH_WORKER.id,
            getRemainingTimeInMillis: () =>
              Math.max(0, started + LOCAL_WORKER.timeoutMs - Date.now()),
          })
          return
        } catch (error) {
          const delay = LOCAL_WORKER.retryDelaysMs[attempt]
          logger.warn('batch worker run failed', {
            batchId: event.batchId,
            attempt: attempt + 1,
            retryInMs: delay ?? null,
            error: error as Error,
          })
          if (delay === undefined) return
          await new Promise((resolve) => setTimeout(resolve, delay))
        }
      }
    })()
    localRuns.add(run)
    void run.finally(() => localRuns.delete(run))
  }
