import type { TimerRecord } from '../domain/offer-timers'
import type { CallOptions } from './members.store'

/**
 * A timer as the sweep reads it: with `leaseUntil` (epoch ms) while a sweep is handling it, so a
 * second sweep running at the same time leaves it alone (the only write a timer gets besides its
 * delete; the stream reader's Put of the same timer again, on a retried record, clears it).
 */
export type SweptTimer = TimerRecord & { leaseUntil?: number }

/** A page of one slot's due timers, oldest first; `next` is set while the Query has more. */
export type TimerPage = { timers: SweptTimer[]; next?: Record<string, unknown> }

/**
 * The timers table (functions/domain/offer-timers.ts) as the sweep reads it: one slot's timers due
 * up to a time, a page at a time, and the delete of one handled. The stream reader writes them
 * (wiring/grant-stream.consumer.ts).
 */
export interface OfferTimerStore {
  dueTimers(
    input: { slot: string; upTo: string; limit: number; start?: Record<string, unknown> },
    options?: CallOptions,
  ): Promise<TimerPage>
  /**
   * Takes the timer for this sweep until `until` (epoch ms), if it still exists and no other sweep
   * holds it at `now`: true when taken.
   */
  claimTimer(
    timer: Pick<TimerRecord, 'slot' | 'due'>,
    lease: { now: number; until: number },
    options?: CallOptions,
  ): Promise<boolean>
  /**
   * Gives a lease back (handling failed): a later run takes the timer up at once instead of after
   * the lease. Only the lease `until` that this sweep took; nothing if another has it since.
   */
  releaseTimer(
    timer: Pick<TimerRecord, 'slot' | 'due'>,
    until: number,
    options?: CallOptions,
  ): Promise<void>
  /** Deletes the timer; a timer already gone (another sweep's) is no error. */
  deleteTimer(timer: Pick<TimerRecord, 'slot' | 'due'>, options?: CallOptions): Promise<void>
}
