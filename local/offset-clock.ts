import type { Clock } from '../functions/runtime/clock'

/**
 * The wall clock of `npm start`'s functions (the runtime's `clock`: createdAt, offer windows,
 * accept-time expiry checks, the sweep, the local queue's visibility timeouts): real time plus an
 * offset that only moves forward, by POST /_local/clock (local/dev-pages/clock-page.ts), so a test
 * against the running server sees a month pass without waiting. It still runs at real speed.
 * The gateway's own clock (Lambda deadlines, the JWT authorizer) stays real time.
 */
export class OffsetClock implements Clock {
  private offset = 0
  constructor(private readonly base: () => number = Date.now) {}
  readonly now = (): number => this.base() + this.offset
  /** How far ahead of real time it is (ms). */
  get offsetMs(): number {
    return this.offset
  }
  /** Moves it forward by `ms` (a whole number, at least 0). */
  advance(ms: number): void {
    if (!Number.isInteger(ms) || ms < 0) throw new RangeError('advance takes whole ms, at least 0')
    this.offset += ms
  }
}
