import { connect, type Socket } from 'node:net'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * A client that writes bytes, not HTTP: half-sent headers, broken framing, sockets closed or
 * reset at any moment. What it got back is parsed only as far as the server sent it.
 */
export type RawAnswer = {
  /** Everything the server sent, as text. */
  text: string
  status: number | undefined
  headers: Record<string, string>
  body: string
  /** True when the server closed (or reset) the connection; false when the client did. */
  closedByServer: boolean
}

export const parseAnswer = (text: string, closedByServer: boolean): RawAnswer => {
  const end = text.indexOf('\r\n\r\n')
  const head = end === -1 ? text : text.slice(0, end)
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  let body = end === -1 ? '' : text.slice(end + 4)
  if (headers['transfer-encoding'] === 'chunked') {
    let decoded = ''
    let rest = body
    for (;;) {
      const lineEnd = rest.indexOf('\r\n')
      const size = Number.parseInt(rest.slice(0, lineEnd), 16)
      if (lineEnd === -1 || !(size > 0)) break
      decoded += rest.slice(lineEnd + 2, lineEnd + 2 + size)
      rest = rest.slice(lineEnd + 4 + size)
    }
    body = decoded
  }
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]
  return { text, status: status ? Number(status) : undefined, headers, body, closedByServer }
}

export type RawConnection = {
  socket: Socket
  /** Resolves once the connection is closed, by either side, with what the server sent. */
  closed: Promise<RawAnswer>
  write: (data: string | Buffer) => Promise<void>
  /** Closes gracefully (FIN), as a client that gives up does (`curl -m 1`). */
  end: () => void
  /** Closes abruptly (RST): the server reads ECONNRESET. */
  reset: () => void
}

export const openRaw = (
  port: number,
  options: { allowHalfOpen?: boolean } = {},
): Promise<RawConnection> =>
  new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: options.allowHalfOpen })
    const chunks: Buffer[] = []
    let closedByClient = false
    socket.on('data', (chunk) => chunks.push(chunk))
    // EPIPE/ECONNRESET while the client still writes are part of the scenarios.
    socket.on('error', () => {})
    const closed = new Promise<RawAnswer>((done) =>
      socket.once('close', () =>
        done(parseAnswer(Buffer.concat(chunks).toString('latin1'), !closedByClient)),
      ),
    )
    socket.once('connect', () =>
      resolve({
        socket,
        closed,
        write: (data) =>
          new Promise<void>((written) => {
            if (socket.destroyed) written()
            else socket.write(data, () => written())
          }),
        end: () => {
          closedByClient = true
          socket.destroy()
        },
        reset: () => {
          closedByClient = true
          socket.resetAndDestroy()
        },
      }),
    )
    socket.once('error', reject)
  })

/** Writes `data`, then waits for the server to close the connection (at most `timeoutMs`). */
export const exchange = async (port: number, data: string | Buffer, timeoutMs = 10_000) => {
  const connection = await openRaw(port)
  await connection.write(data)
  const timer = setTimeout(() => connection.end(), timeoutMs)
  const answer = await connection.closed
  clearTimeout(timer)
  return answer
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Opens a connection, writes `head`, then a chunked body in 256 KB frames until `stop` says so or
 * the connection is gone (at most 15 s). `stop` sees how much came back and how much was sent.
 */
export const sendChunked = async (
  port: number,
  head: string,
  stop: (progress: {
    received: number
    sent: number
    socket: Socket
  }) => boolean | Promise<boolean>,
  options: { allowHalfOpen?: boolean } = {},
) => {
  const client = await openRaw(port, options)
  let received = 0
  client.socket.on('data', (chunk: Buffer) => {
    received += chunk.length
  })
  await client.write(head)
  const piece = Buffer.alloc(256 * 1024, 0x20)
  const frame = Buffer.concat([
    Buffer.from(`${piece.length.toString(16)}\r\n`),
    piece,
    Buffer.from('\r\n'),
  ])
  let sent = 0
  const started = Date.now()
  while (
    !client.socket.destroyed &&
    !(await stop({ received, sent, socket: client.socket })) &&
    Date.now() - started < 15_000
  ) {
    await client.write(frame)
    sent += piece.length
  }
  return { client, sent }
}

/**
 * Bytes still referenced after full collections: garbage not yet collected (a client's own
 * chunks, in this same process) is not memory a server kept, and when the collector runs differs
 * by Node.js version (24 collects later than 22 and 20). A Buffer's memory is released only after
 * its collection, off the JavaScript thread, so the heap is collected again after a turn of the
 * event loop, until two readings agree within 64 KB.
 */
export const retainedBytes = async (): Promise<number> => {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  const reading = () => {
    gc()
    return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers
  }
  let last = reading()
  for (let turn = 0; turn < 10; turn++) {
    await new Promise((resolve) => setImmediate(resolve))
    const now = reading()
    if (Math.abs(now - last) < 64 * 1024) return now
    last = now
  }
  return last
}
