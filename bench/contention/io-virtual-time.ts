import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { WakeQueue } from './wake-queue'

/**
 * Virtual time for code that runs its own concurrency: the same discrete-event clock as
 * ./virtual-time.ts (the contention model's service times, ties woken in the order they slept),
 * told when to move differently.
 *
 * Why another: VirtualTime moves when every client it started is waiting on it, so code under
 * test may only run concurrent work through `fork`. The send-to-many worker
 * (functions/core/grant-batch-worker.ts) grants `rowsInParallel` rows with a Promise.all of its
 * own, and looks for a cancel with a read it does not wait for: VirtualTime would count those wrong
 * and move while a row is still talking to DynamoDB Local. This clock counts no clients: it moves
 * only when no real I/O is in flight (the DynamoDB calls of the clients `attach`ed, counted below
 * the model's middleware, SDK retries included) and the process has gone a whole turn of the event
 * loop with nothing new waiting on it: every promise that could run has run, so every piece of
 * work is waiting on this clock or on real I/O. Anything else real (a setTimeout sleep in code
 * that does not take its sleeps from here) is not waited for: such code looks faster here.
 */
export class IoVirtualTime {
  private current = 0
  private seq = 0
  /** Real calls in flight. */
  private inFlight = 0
  /** Bumped by everything that changes what is waiting: a turn with no bump is quiet. */
  private activity = 0
  private seen = -1
  private scheduled = false
  private readonly queue = new WakeQueue()

  /** Virtual milliseconds since the run started. */
  now = (): number => this.current

  /** Waits until `ms` of virtual time have passed. */
  sleep = (ms: number): Promise<void> => this.until(this.current + Math.max(0, ms))

  until(at: number): Promise<void> {
    return new Promise((wake) => {
      this.queue.push({ at: Math.max(at, this.current), seq: this.seq++, wake })
      this.activity++
      this.kick()
    })
  }

  /** Counts `work` as real I/O: the clock stands still until it settles. */
  async real<T>(work: () => Promise<T>): Promise<T> {
    this.inFlight++
    this.activity++
    try {
      return await work()
    } finally {
      this.inFlight--
      this.activity++
      this.kick()
    }
  }

  /** Counts every call of `client` as real I/O (below any middleware added before, the model's). */
  attach(client: DynamoDBClient) {
    client.middlewareStack.add((next) => (args) => this.real(() => next(args)), {
      step: 'finalizeRequest',
      name: 'io-virtual-time',
      priority: 'high',
    })
  }

  /** Runs `clients` to completion, each started at virtual time 0, however they run inside. */
  async run(clients: (() => Promise<void>)[]): Promise<void> {
    try {
      await Promise.all(clients.map((client) => client()))
    } finally {
      this.activity++
      this.kick()
    }
  }

  private kick() {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => this.tick())
  }

  private tick() {
    this.scheduled = false
    if (this.inFlight > 0 || this.queue.length === 0) return
    if (this.activity !== this.seen) {
      // Something happened since the last look: one more turn, so that what it set going settles.
      this.seen = this.activity
      this.kick()
      return
    }
    const next = this.queue.pop()
    if (next === undefined) return
    this.current = next.at
    this.activity++
    next.wake()
    this.kick()
  }
}
