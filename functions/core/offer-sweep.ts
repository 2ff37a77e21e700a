import { allTimerSlots, dueUpTo, type TimerRecord } from '../domain/offer-timers'
import type { OfferTimerStore, SweptTimer } from '../stores/offer-timers.store'
import type { makeGrantLife } from './grant-life'

/**
 * The offer sweep (functions/consumers.ts, OfferSweep; docs/decisions/offer-expiry.md): every
 * timer due by the time the run starts, in every slot of the timers table, is handled and
 * deleted. `expire` timers end the grant's offer (its shares go back, in the grant's own
 * transaction), `remind` timers mark the reminder due (the stream reader queues its mail).
 *
 * Safe to run twice at once, and again after a crash:
 * - a sweep takes a timer (a conditional write of `leaseUntil`, LEASE_MS) before it acts on its
 *   grant, so two sweeps running at once (EventBridge's next minute while a long run goes on)
 *   never act on one timer together: a reminder is marked once, and two expiries of one grant do
 *   not conflict on its shards;
 * - should a lease run out with the sweep still acting (or two timers name one grant), the grant's
 *   life still decides each change on the grant's state in one conditional transaction: a
 *   second expiry finds the grant final and returns nothing;
 * - a timer is deleted only once its grant needs nothing more from it. One whose grant says "not
 *   due yet" (a timer ahead of the grant's own window) stays, and a later run takes it up once
 *   its lease has run out; one whose handling failed (DynamoDB unavailable) stays with its lease
 *   given back, for the next run. A sweep stopped half-way leaves its timers to their leases.
 */

/**
 * How long a sweep holds a timer: more than the function's timeout (60 s, functions/consumers.ts),
 * so a lease never runs out under a sweep still running.
 */
export const LEASE_MS = 2 * 60_000

type Life = Pick<ReturnType<typeof makeGrantLife>, 'expire' | 'remind'>

export type OfferSweepDeps = {
  timers: OfferTimerStore
  life: Life
  /** The same clock the grant's life reads (an expiry is decided against it twice). */
  clock: () => number
  /** Slots read at once (of TIMER_SLOTS). Default 8. */
  slotConcurrency?: number
  /** Timers of one page handled at once. Default 4. */
  timerConcurrency?: number
  /** Timers per Query page. Default 100. */
  pageSize?: number
  /**
   * How long the run may still take (the Lambda context's remaining time less a margin); no page
   * or timer is started once it is at or below 0, and the rest waits for the next run. Default: no
   * limit (npm start, tests).
   */
  remainingMs?: () => number
  /**
   * Runs `count` lanes at once and resolves when all have ended. Default: Promise.all. The
   * contention model passes its virtual clock's (bench/contention/virtual-time.ts `fork`).
   */
  lanes?: (count: number, lane: () => Promise<void>) => Promise<void>
  /** Told of a slot that could not be read or a timer that could not be handled (left for the next run). */
  onFailure?: (at: { slot: string; grantId?: string; kind?: string }, error: unknown) => void
}

export type OfferSweepReport = {
  /** The time the run swept up to (ISO). */
  upTo: string
  /** Timers read. */
  read: number
  /** Grants expired by this run (their shares returned). */
  expired: number
  /** Reminders marked due by this run. */
  reminded: number
  /** Timers whose grant needed nothing (already final, reminded, gone): deleted. */
  settled: number
  /** Timers deleted (expired + reminded + settled). */
  deleted: number
  /** Timers left because their grant said they were not due yet. */
  notDue: number
  /** Timers another sweep was handling (left to it). */
  held: number
  /** Timers left because handling them failed (tried again next run). */
  failed: number
  /** Whether every due timer was reached (false: the time budget ran out first). */
  complete: boolean
}

const promiseLanes = async (count: number, lane: () => Promise<void>) => {
  await Promise.all(Array.from({ length: count }, lane))
}

export const makeOfferSweep = (deps: OfferSweepDeps) => {
  const slotConcurrency = deps.slotConcurrency ?? 8
  const timerConcurrency = deps.timerConcurrency ?? 4
  const pageSize = deps.pageSize ?? 100
  const remaining = deps.remainingMs ?? (() => Number.POSITIVE_INFINITY)
  const lanes = deps.lanes ?? promiseLanes
  /** Runs `work` over `items` with at most `limit` at once. */
  const eachLimited = async <T>(
    items: readonly T[],
    limit: number,
    work: (item: T) => Promise<void>,
  ) => {
    let next = 0
    await lanes(Math.min(limit, items.length), async () => {
      while (next < items.length) await work(items[next++] as T)
    })
  }

  return async (): Promise<OfferSweepReport> => {
    // One time for the whole run: a timer falling due while it runs is the next run's.
    const upTo = dueUpTo(new Date(deps.clock()).toISOString())
    const report: OfferSweepReport = {
      upTo: upTo.slice(0, -2),
      read: 0,
      expired: 0,
      reminded: 0,
      settled: 0,
      deleted: 0,
      notDue: 0,
      held: 0,
      failed: 0,
      complete: true,
    }

    /** What one timer comes to: `keep` leaves it for the next run. */
    const handle = async (
      timer: TimerRecord,
    ): Promise<'expired' | 'reminded' | 'settled' | 'keep'> => {
      if (timer.kind === 'expire') {
        const outcome = await deps.life.expire(timer.grantId)
        if (outcome === 'not_due') return 'keep'
        return outcome === 'expired' ? 'expired' : 'settled'
      }
      if (timer.kind === 'remind') {
        const outcome = await deps.life.remind(timer.grantId)
        if (outcome === 'not_due') return 'keep'
        return outcome === 'reminded' ? 'reminded' : 'settled'
      }
      // A kind this code does not know (a newer writer's): nothing to do with it here.
      return 'settled'
    }

    const sweepTimer = async (timer: SweptTimer) => {
      if (remaining() <= 0) {
        report.complete = false
        return
      }
      report.read++
      let lease: number | undefined
      try {
        const now = deps.clock()
        if (
          (timer.leaseUntil !== undefined && timer.leaseUntil > now) ||
          !(await deps.timers.claimTimer(timer, { now, until: now + LEASE_MS }))
        ) {
          report.held++
          return
        }
        lease = now + LEASE_MS
        const result = await handle(timer)
        if (result === 'keep') {
          report.notDue++
          return
        }
        await deps.timers.deleteTimer(timer)
        report[result]++
        report.deleted++
      } catch (error) {
        report.failed++
        deps.onFailure?.({ slot: timer.slot, grantId: timer.grantId, kind: timer.kind }, error)
        // The next run takes it up again, not only once the lease has run out.
        if (lease !== undefined) await deps.timers.releaseTimer(timer, lease).catch(() => {})
      }
    }

    const sweepSlot = async (slot: string) => {
      let start: Record<string, unknown> | undefined
      do {
        if (remaining() <= 0) {
          report.complete = false
          return
        }
        const page = await deps.timers.dueTimers({
          slot,
          upTo,
          limit: pageSize,
          ...(start === undefined ? {} : { start }),
        })
        await eachLimited(page.timers, timerConcurrency, sweepTimer)
        start = page.next
      } while (start !== undefined)
    }

    await eachLimited(allTimerSlots(), slotConcurrency, async (slot) => {
      try {
        await sweepSlot(slot)
      } catch (error) {
        // A slot whose Query failed: the others go on; its timers wait for the next run.
        report.complete = false
        report.failed++
        deps.onFailure?.({ slot }, error)
      }
    })
    return report
  }
}
