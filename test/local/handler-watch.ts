import type { Server } from 'node:http'
import { type AddressInfo, connect, type Socket } from 'node:net'
import type { LambdaHandler } from '../../local/http-server'

/**
 * What test/local/hostile-clients.test.ts watches in its servers: every handler invocation (and a
 * way to hold one, or make it crash), and every connection, so that a case is known to be over
 * exactly (settle), not after a quiet period of real time.
 */
export type Hold = {
  started: () => void
  release: Promise<void>
  finished: (status?: number) => void
}

export const handlerWatch = () => {
  /** Every invocation of a handler, in order. */
  const invoked: string[] = []
  /** The time each invocation's context said it had left as it started. */
  const remainingAtStart: number[] = []
  /** A request carrying `x-test-hold: <id>` waits in its handler until the test releases it. */
  const holds = new Map<string, Hold>()
  /** The server side of every connection to the watched servers, in the order they came. */
  const connections: Socket[] = []
  /** Each request the watched servers took, settled once they are done with it (onServe). */
  const served: Promise<void>[] = []
  const servers: Server[] = []

  /**
   * Resolves once `server` has accepted every connection made to it before the call: a probe
   * connection is accepted after them (the listening socket's queue is first in, first out), so
   * once the server sees it, the ones a loaded machine had left waiting are in `connections`.
   */
  const acceptedAll = (server: Server) =>
    new Promise<void>((resolve, reject) => {
      const probe = connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1' })
      const ports = new Set<number | undefined>()
      let connected = false
      const check = () => {
        if (!connected || !ports.has(probe.localPort)) return
        server.off('connection', seen)
        probe.destroy()
        resolve()
      }
      const seen = (socket: Socket) => {
        ports.add(socket.remotePort)
        check()
      }
      server.on('connection', seen)
      probe.once('connect', () => {
        connected = true
        check()
      })
      probe.once('error', (error) => {
        server.off('connection', seen)
        reject(error)
      })
    })

  const whenIdle: (() => void)[] = []
  let running = 0

  const wrap =
    (routeKey: string, handler: LambdaHandler): LambdaHandler =>
    async (event, context) => {
      invoked.push(routeKey)
      remainingAtStart.push(context.getRemainingTimeInMillis())
      running++
      try {
        if (event.headers['x-test-crash'] !== undefined) throw new Error('the function crashed')
        const hold = holds.get(event.headers['x-test-hold'] ?? '')
        if (!hold) return await handler(event, context)
        hold.started()
        await hold.release
        const result = await handler(event, context)
        hold.finished(result.statusCode)
        return result
      } finally {
        running--
        if (running === 0) for (const idle of whenIdle.splice(0)) idle()
      }
    }

  return {
    invoked,
    remainingAtStart,
    holds,
    connections,
    wrap,
    watch: (server: Server) => {
      servers.push(server)
      server.on('connection', (socket) => connections.push(socket))
    },
    /** The servers' `onServe` option (local/http-server.ts): every request they take. */
    onServe: (done: Promise<void>) => {
      served.push(done)
    },
    /**
     * Waits until the servers are done with a case: every connection the case made accepted (a
     * probe behind them), and every one since `from` closed on the server's side (no request can
     * arrive on it after), then every request they took handled
     * to its end (answered, dropped, or its function returned: a request read in full just before
     * its client reset may start its function only after the close), then no handler running
     * (one past the gateway's timeout runs on), then one more turn of the event loop.
     */
    settle: async (from: number) => {
      await Promise.all(servers.map(acceptedAll))
      for (const socket of connections.slice(from)) {
        if (!socket.destroyed) await new Promise((r) => socket.once('close', r))
      }
      await Promise.all(served)
      if (running > 0) await new Promise<void>((r) => whenIdle.push(r))
      await new Promise((r) => setImmediate(r))
    },
  }
}
