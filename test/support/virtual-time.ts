import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { ClientRequest } from 'node:http'
import type { Socket } from 'node:net'

/**
 * Active resources (process.getActiveResourcesInfo) that only wait for the outside: sockets and
 * servers waiting for a peer, the pipes and ports to the run's other processes, watchers, and real
 * timers (Jest's own; the code under test runs on the fake ones). Anything else (a connect, a
 * write, a file read, a lookup, an immediate) is work under way, and the clock must not move under
 * it. An unknown kind counts as work: the test then waits, never races.
 */
const WAITING = new Set([
  'TCPServerWrap',
  'TCPSocketWrap',
  'PipeWrap',
  'ProcessWrap',
  'TTYWrap',
  'SignalWrap',
  'MessagePort',
  'FSEventWrap',
  'StatWatcher',
  'Timeout',
])

const START = 'http.client.request.start'

/**
 * Jest's fake clock, moved only when the process waits on nothing but timers, over real sockets.
 * Every HTTP request the code under test opens must be held by a peer that answers only when a
 * timer fires (`hold`), or the clock stays put until it closes: so whatever a real peer on
 * loopback does, it does at the current virtual instant, and no outcome depends on how fast the
 * machine runs it.
 *
 * `setImmediate`, `nextTick` and `queueMicrotask` stay real: Node's sockets and streams run on
 * them. Code that imports `setTimeout` from `node:timers` (middy) needs that module mocked onto
 * the globals (see test/reliability/deadline.test.ts): Jest fakes only the test's globals.
 */
export class VirtualTime {
  private readonly open = new Set<ClientRequest>()
  private readonly held = new Set<number>()
  private wake: (() => void) | undefined
  private readonly onStart = (message: unknown) => {
    const { request } = message as { request: ClientRequest }
    this.open.add(request)
    request.once('close', () => {
      this.open.delete(request)
      this.changed()
    })
    this.changed()
  }

  /** Fakes the clock (Date, performance, timers) and starts watching HTTP requests. */
  start() {
    this.open.clear()
    this.held.clear()
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] })
    subscribe(START, this.onStart)
  }

  /** Back to real time; the fake timers still pending are dropped. */
  stop() {
    unsubscribe(START, this.onStart)
    jest.useRealTimers()
  }

  /**
   * A peer's side of a connection holds the request that arrived on it: nothing comes back until a
   * timer fires. Call the returned function when it answers, lets the request through, or closes.
   */
  hold(socket: Socket): () => void {
    const port = socket.remotePort as number
    this.held.add(port)
    this.changed()
    return () => {
      if (this.held.delete(port)) this.changed()
    }
  }

  /**
   * Runs the clock until `work` settles: waits (on events, or turn by turn while I/O is under
   * way) until the process is quiet, then fires the next timer. `onQuiet` may act on a quiet
   * moment instead (return true), e.g. let a held request through.
   */
  async until<T>(work: Promise<T>, onQuiet: () => boolean = () => false): Promise<T> {
    let settled = false
    const done = () => {
      settled = true
      this.changed()
    }
    work.then(done, done)
    for (;;) {
      const change = new Promise<void>((resolve) => {
        this.wake = resolve
      })
      // One turn of the event loop: microtasks, ticks and I/O already arrived all run first.
      await new Promise((resolve) => setImmediate(resolve))
      if (settled) return work
      if (this.working().length > 0) continue
      if (!this.requestsHeld()) {
        await change
        continue
      }
      if (onQuiet()) continue
      if (jest.getTimerCount() === 0) {
        throw new Error(
          'Nothing left to wait on: no fake timer, no I/O, no request. A real timer (node:timers not mocked)?',
        )
      }
      jest.advanceTimersToNextTimer()
    }
  }

  /** Every open request sits at a peer that holds it, and every held one is still open. */
  private requestsHeld(): boolean {
    for (const request of this.open) {
      const port = request.socket?.localPort
      if (port === undefined || !this.held.has(port)) return false
    }
    return this.open.size === this.held.size
  }

  private working(): string[] {
    return process.getActiveResourcesInfo().filter((type) => !WAITING.has(type))
  }

  private changed() {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }
}
