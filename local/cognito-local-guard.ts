import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { isLoopbackHost } from './loopback-host'

/**
 * What the Cognito emulator answers, and to whom. cognito-local answers every Origin with
 * `Access-Control-Allow-Origin: *` and any Host: a web page the developer visits could call
 * `AdminGetUser` (no credentials are checked) or read temporary passwords. In front of its
 * handler, this:
 *
 * - refuses (403) a Host that is not a loopback name (a page that rebound its name to 127.0.0.1);
 * - refuses (403) a request from any browser origin but the console's (`allowedOrigins`), preflight
 *   included, and answers the console's with its own origin, never `*`;
 * - sends no `Access-Control-Allow-Origin` at all to clients that send no Origin (SDKs, the CLI).
 */
export const consoleOrigins = (consoleUrl: string): string[] => {
  const url = new URL(consoleUrl)
  // The local console answers on every loopback name (localhost, 127.0.0.1, [::1]) of its port.
  if (!isLoopbackHost(url.host)) return [url.origin]
  const port = url.port === '' ? '' : `:${url.port}`
  return [
    ...new Set([
      url.origin,
      ...['localhost', '127.0.0.1', '[::1]'].map((name) => `${url.protocol}//${name}${port}`),
    ]),
  ]
}

const refuse = (res: ServerResponse, message: string) => {
  res.writeHead(403, { 'content-type': 'application/json', 'cache-control': 'no-store' })
  res.end(JSON.stringify({ __type: 'ForbiddenException', message }))
}

const ALLOW_ORIGIN = 'access-control-allow-origin'

export const guardEmulator = (server: Server, allowedOrigins: readonly string[]) => {
  const handlers = server.listeners('request') as ((
    req: IncomingMessage,
    res: ServerResponse,
  ) => void)[]
  server.removeAllListeners('request')
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!isLoopbackHost(req.headers.host)) {
      refuse(res, 'The emulator answers only requests for a loopback host name.')
      return
    }
    const origin = req.headers.origin
    if (origin !== undefined && !allowedOrigins.includes(origin)) {
      refuse(
        res,
        `The emulator answers no browser origin but the console's (${allowedOrigins[0]}).`,
      )
      return
    }
    // cognito-local's CORS middleware writes `*`: the console's origin, or nothing, instead.
    const setHeader = res.setHeader.bind(res)
    res.setHeader = (name: string, value: number | string | readonly string[]) => {
      if (name.toLowerCase() !== ALLOW_ORIGIN) return setHeader(name, value)
      if (origin === undefined) return res
      setHeader('vary', 'Origin')
      return setHeader(name, origin)
    }
    for (const handler of handlers) handler.call(server, req, res)
  })
}
