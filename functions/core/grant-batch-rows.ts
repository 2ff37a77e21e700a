import { setMaxListeners } from 'node:events'
import {
  type BatchChunk,
  type BatchRecord,
  type RowResult,
  rowIdempotencyKey,
  type StoredRow,
} from '../domain/batch'
import { DomainError } from '../domain/errors'
import { startDeadline } from '../runtime/deadline'
import { type RetryDeps, retrying } from '../runtime/retry'
import * as RETRY from '../runtime/retry-policies'
import { transientKind } from '../stores/store-errors'
import type { GrantTokensInput, GrantTokensResult } from './grant-tokens'

/**
 * The rows of one chunk, as the batch worker (core/grant-batch-worker.ts) runs them: the
 * delivery's time budget, the cancel it looks for, one row through the grant use case, and the
 * rows `rowsInParallel` at a time over the invocation's slots.
 */

/**
 * How a delivery spends its time: it starts no row `reserveMs` before the function's end (or 30% of
 * a short run), commits what it did and hands the rest back to the queue; one row (with its
 * retries) gets at most `rowBudgetMs`; a running chunk looks for a cancel every `cancelCheckMs`.
 */
export const WORKER_BUDGET = {
  reserveMs: 10_000,
  reserveShare: 0.3,
  rowBudgetMs: 7_500,
  cancelCheckMs: 1_000,
} as const

/** Busy, away or in conflict: worth another try (a deadline's abort included). */
export const isTransient = (error: unknown) =>
  error instanceof DomainError
    ? error.code === 'service_unavailable' || error.code === 'request_conflict'
    : transientKind(error) !== undefined

/** At most `size` holders at once; `take` waits for a place, `give` hands it on. */
export type Slots = { take(): Promise<void>; give(): void }
export const makeSlots = (size: number): Slots => {
  let free = size
  const waiting: (() => void)[] = []
  return {
    take: () => {
      if (free > 0) {
        free--
        return Promise.resolve()
      }
      return new Promise<void>((resolve) => waiting.push(resolve))
    },
    give: () => {
      const next = waiting.shift()
      if (next) next()
      else free++
    },
  }
}

/** A delivery's deadlines (ms on `now`'s clock), from the time Lambda says it has left. */
export const chunkBudget = (started: number, total: number, rowsInParallel: number) => {
  const reserve = Math.min(WORKER_BUDGET.reserveMs, total * WORKER_BUDGET.reserveShare)
  /** No row is started after this. */
  const stopAt = started + total - reserve
  /** No call is waited for after this. */
  const hardEnd = started + total - Math.min(1_000, total * 0.1)
  /** No row's call is waited for after this: half the reserve is left for the commit. */
  const rowsEnd = stopAt + (hardEnd - stopAt) / 2
  // A real timer whatever `now` is: the last net under a run that ignores its budget.
  const runSignal = AbortSignal.timeout(Math.max(1, hardEnd - started))
  // Every row in flight waits on it (its deadline, its pauses): more than Node's default 10.
  setMaxListeners(4 * rowsInParallel + 16, runSignal)
  return { stopAt, hardEnd, rowsEnd, runSignal }
}

export type ChunkBudget = ReturnType<typeof chunkBudget>

/** A cancel of the batch, looked for at most every `cancelCheckMs` while the chunk runs. */
export const cancelWatch = (
  read: () => Promise<BatchRecord | undefined>,
  now: () => number,
  already: boolean,
) => {
  let canceled = already
  let lastCheck = now()
  let checking: Promise<void> | undefined
  return {
    canceled: () => canceled,
    look: () => {
      if (canceled || checking || now() - lastCheck < WORKER_BUDGET.cancelCheckMs) return
      lastCheck = now()
      checking = read()
        .then((batch) => {
          if (batch?.cancelRequestedAt !== undefined) canceled = true
        })
        .catch(() => {})
        .finally(() => {
          checking = undefined
        })
    },
    /** The look in flight, if any, has ended. */
    settled: () => checking,
  }
}

export type CancelWatch = ReturnType<typeof cancelWatch>

/**
 * One row through the grant use case, until it has an answer that will not change, or no more
 * time (`time_up`: a row's retries wait no later than the last moment a row may start).
 */
export const rowGranter =
  ({
    batch,
    budget: { stopAt, rowsEnd, runSignal },
    grantTokens,
    now,
    ...deps
  }: Required<Pick<RetryDeps, 'now'>> &
    Omit<RetryDeps, 'now'> & {
      batch: BatchRecord
      budget: ChunkBudget
      grantTokens: (input: GrantTokensInput) => Promise<GrantTokensResult>
    }) =>
  (row: StoredRow) =>
    retrying<RowResult | 'time_up'>(
      async () => {
        const deadline = startDeadline(
          {
            getRemainingTimeInMillis: () =>
              Math.max(0, Math.min(WORKER_BUDGET.rowBudgetMs, rowsEnd - now())),
          },
          now,
        )
        try {
          const { grant } = await grantTokens({
            member: {
              issuerId: batch.issuerId,
              sentBy: batch.createdBy,
              mode: batch.mode,
              batch: { batchId: batch.batchId, row: row.row },
            },
            programId: batch.program,
            idempotencyKey: rowIdempotencyKey(batch.batchId, row.row),
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
          return { status: 'granted', grantId: grant.grantId } as const
        } catch (error) {
          // The grant's own refusal (validation, pool, program): this row fails.
          if (!isTransient(error) && error instanceof DomainError) {
            return { status: 'failed', code: error.code, message: error.detail } as const
          }
          throw error
        } finally {
          deadline.dispose()
        }
      },
      {
        ...deps,
        backoff: RETRY.batchStore,
        again: isTransient,
        until: stopAt,
        exhausted: () => 'time_up' as const,
        signal: runSignal,
        now,
      },
    )

/**
 * The chunk's rows from `before` on, `rowsInParallel` at a time over the invocation's `slots`;
 * results land in their row's place. It stops starting rows at `stopAt`, at a cancel (rows never
 * started end canceled), or at an error that is not the row's own (`fatal`, rethrown after the
 * commit of what was done).
 */
export const runRows = async (
  chunk: BatchChunk,
  before: number,
  {
    slots,
    rowsInParallel,
    grantRow,
    watch,
    stopAt,
    now,
  }: {
    slots: Slots
    rowsInParallel: number
    grantRow: (row: StoredRow) => Promise<RowResult | 'time_up'>
    watch: CancelWatch
    stopAt: number
    now: () => number
  },
) => {
  const results: (RowResult | undefined)[] = chunk.results.slice()
  let next = before
  let fatal: unknown
  let timeUp = false
  const runner = async () => {
    while (fatal === undefined && !timeUp && next < chunk.rows.length) {
      await slots.take()
      try {
        watch.look()
        if (watch.canceled()) return
        if (now() >= stopAt) {
          timeUp = true
          return
        }
        const j = next++
        if (j >= chunk.rows.length) return
        const row = chunk.rows[j] as StoredRow
        if (row.problem !== undefined) {
          // Refused at commit: already counted in `failed`.
          results[j] = { status: 'failed', code: row.problem.code, message: row.problem.message }
          continue
        }
        try {
          const result = await grantRow(row)
          if (result === 'time_up') timeUp = true
          else results[j] = result
        } catch (error) {
          fatal = error
        }
      } finally {
        slots.give()
      }
    }
  }
  await Promise.all(
    Array.from({ length: Math.min(rowsInParallel, chunk.rows.length - before) }, runner),
  )
  await watch.settled()
  if (watch.canceled()) {
    // Rows never started are never granted; a row granted meanwhile keeps its grant.
    for (let j = Math.max(before, next); j < chunk.rows.length; j++) {
      const problem = (chunk.rows[j] as StoredRow).problem
      results[j] =
        problem === undefined
          ? { status: 'canceled' }
          : { status: 'failed', code: problem.code, message: problem.message }
    }
  }
  return { results, fatal }
}
