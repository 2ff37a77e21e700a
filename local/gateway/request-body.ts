import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'

export type Body = Buffer | 'too-large' | 'gone'

/**
 * Reads a request body, keeping at most `limit` bytes: past it, stops keeping and says so at once.
 * A client that goes away mid-body (reset, closed, timed out) is 'gone', never an exception.
 */
export const readBody = (req: IncomingMessage, limit: number) =>
  new Promise<Body>((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    const finish = (result: Body) => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onGone)
      req.off('close', onGone)
      resolve(result)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) finish('too-large')
      else chunks.push(chunk)
    }
    const onEnd = () => finish(Buffer.concat(chunks, size))
    // 'close' before 'end' (or an 'error'): the request was destroyed, its client is gone.
    const onGone = () => finish('gone')
    req.on('data', onData)
    req.once('end', onEnd)
    req.once('error', onGone)
    req.once('close', onGone)
  })

/** Ends our side of a connection now, and destroys it once the client is done or `ms` passed. */
export const lingeringClose = (socket: Duplex, ms: number) => {
  socket.end()
  const timer = setTimeout(() => socket.destroy(), ms)
  timer.unref()
  socket.once('close', () => clearTimeout(timer))
}
