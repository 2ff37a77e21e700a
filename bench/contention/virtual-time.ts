import { WakeQueue } from './wake-queue'

/**
 * Virtual time for the contention model: a discrete-event clock that only moves when every
 * simulated client is waiting on it.
 *
 * Why: DynamoDB Local runs transactions one at a time, at 70 to 200 per second on a 2-core
 * machine, so a thousand grants per second cannot happen on the wall clock here. Each client runs
 * the project's real code; a DynamoDB call does its real work against DynamoDB Local (wall time,
 * during which virtual time stands still) and then waits, in virtual time, for the service time
 * the model gives it. Rates and latencies are read off this clock, never off the wall clock.
 *
 * A client is "busy" from when it is woken until it waits again; the clock advances to the next
 * wake-up only when no client is busy. Anything a client awaits that is neither this clock nor a
 * real I/O that finishes on its own would stall the run, so the code under test takes its sleeps
 * and clocks from here.
 */
export class VirtualTime {
  private current = 0
  private seq = 0
  private busy = 0
  private readonly queue = new WakeQueue()
  private scheduled = false

  /** Virtual milliseconds since the run started. */
  now = (): number => this.current

  /** Waits until `ms` of virtual time have passed (the signal is ignored: no deadlines here). */
  sleep = (ms: number): Promise<void> => this.until(this.current + Math.max(0, ms))

  until(at: number): Promise<void> {
    return new Promise((wake) => {
      this.queue.push({ at: Math.max(at, this.current), seq: this.seq++, wake })
      this.busy--
      this.kick()
    })
  }

  /** Runs `clients` to completion, each starting busy at time 0. */
  async run(clients: (() => Promise<void>)[]): Promise<void> {
    this.busy += clients.length
    await Promise.all(
      clients.map(async (client) => {
        try {
          await client()
        } finally {
          this.busy--
          this.kick()
        }
      }),
    )
  }

  /**
   * Runs `tasks` at once from inside a client, each counted as a client of its own, while the
   * caller waits (not busy) until they have all ended: how code that runs work concurrently within
   * one client (Promise.all over lanes) keeps the clock's count of busy clients right.
   */
  async fork(tasks: (() => Promise<void>)[]): Promise<void> {
    this.busy += tasks.length - 1
    try {
      await Promise.all(
        tasks.map(async (task) => {
          try {
            await task()
          } finally {
            this.busy--
            this.kick()
          }
        }),
      )
    } finally {
      // The caller is busy again before the clock can move (a kick waits for setImmediate).
      this.busy++
    }
  }

  private kick() {
    if (this.busy > 0 || this.scheduled || this.queue.length === 0) return
    this.scheduled = true
    // Let settled promises run first: a client woken a moment ago may not have counted yet.
    setImmediate(() => {
      this.scheduled = false
      if (this.busy > 0) return
      const next = this.queue.pop()
      if (next === undefined) return
      this.current = next.at
      this.busy++
      next.wake()
    })
  }
}
