import { createServer, type IncomingHttpHeaders } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

/**
 * A real webhook receiver on loopback (http, or https with a test's certificate) that verifies
 * every request with the `standardwebhooks` package, code we did not write, exactly as the
 * README's receiver does. Requests are routed by the URL's last path segment (an endpoint id, or
 * any name a test chooses); `secrets` tells the verifier each one's secret, `behaviours` what it
 * answers to its n-th request (default 200).
 */
export type Received = {
  /** The URL's last path segment. */
  name: string
  path: string
  id: string
  timestamp: number
  body: string
  /** When it arrived, real time (seconds). */
  realSeconds: number
  /** standardwebhooks accepted it (signature, and a timestamp within 5 minutes of real time). */
  verified: boolean
  headers: IncomingHttpHeaders
}
export type Answer = { status: number; headers?: Record<string, string>; body?: string }

export const startWebhookReceiver = async (tls?: {
  key: string | Buffer
  cert: string | Buffer
}) => {
  const received: Received[] = []
  const behaviours = new Map<string, (n: number) => Answer>()
  const secrets = new Map<string, string>()
  const listener = (
    req: import('node:http').IncomingMessage,
    res: import('node:http').ServerResponse,
  ) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const path = (req.url ?? '').split('?')[0] ?? ''
      const name = path.split('/').pop() ?? ''
      let verified = false
      const secret = secrets.get(name)
      if (secret !== undefined) {
        try {
          new Webhook(secret).verify(body, req.headers as Record<string, string>)
          verified = true
        } catch {
          verified = false
        }
      }
      const n = received.filter((r) => r.name === name).length
      received.push({
        name,
        path,
        id: String(req.headers['webhook-id']),
        timestamp: Number(req.headers['webhook-timestamp']),
        body,
        realSeconds: Date.now() / 1000,
        verified,
        headers: req.headers,
      })
      const answer = behaviours.get(name)?.(n) ?? { status: 200 }
      res.writeHead(answer.status, answer.headers)
      res.end(answer.body ?? 'ok')
    })
  }
  const server = tls === undefined ? createServer(listener) : createHttpsServer(tls, listener)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    /** `http://127.0.0.1:<port>` (https with `tls`). */
    base: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    port,
    received,
    behaviours,
    secrets,
    by: (name: string) => received.filter((r) => r.name === name),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
