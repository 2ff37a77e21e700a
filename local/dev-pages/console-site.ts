import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { extname, resolve, sep } from 'node:path'
import {
  CONSOLE_ASSETS_DIR,
  CONSOLE_CACHE_CONTROL,
  CONSOLE_PATH,
  type ConsoleConfig,
  consoleSecurityHeaders,
  RECIPIENT_PAGES,
} from '../../lib/console-site'
import { compileViewerRequest, viewerRequestEvent } from '../../lib/console-viewer-request'
import { isLoopbackHost, notLoopbackProblem } from '../loopback-host'

/**
 * The issuer console under `npm start`: what S3 + CloudFront do in AWS (lib/console-hosting.ts),
 * done by the local server for `/app` and `/app/...`. The same viewer-request function decides what
 * is a page (index.html) and what is a file, the same headers go out (lib/console-site.ts), and
 * `config.json` is made from the emulator the server runs instead of the stack's resources.
 */
export type LocalConsoleOptions = {
  /** The built console (`console/dist` under npm start; tests point it at a folder of their own). */
  dir: string
  /**
   * The user pool the console signs in to: everything config.json holds but `grantApiUrl`. Read on
   * each request (npm start sets it once the emulator is up); until then config.json answers 503.
   */
  identity?: Omit<ConsoleConfig, 'grantApiUrl'>
  /**
   * Where send to many's presigned POSTs go (the local upload receiver's origin): the CSP's
   * connect-src gains it, as it gains the upload bucket's endpoint in AWS.
   */
  uploadOrigin?: string
}

export type ConsoleAnswer = {
  status: number
  headers: Record<string, string>
  body: Buffer | string
}

/** Only these methods reach the console, as on its CloudFront behaviour (GET and HEAD). */
const METHODS = ['GET', 'HEAD']

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
}

/**
 * A file name the server may open: segments of letters, digits, `_`, `-` and `.`, none empty and
 * none starting with a dot. So no `.` or `..` segment, no dotfile, no `//`, no backslash, no
 * percent-encoding (`%2e%2e`, `%2f`, `%5c`: nothing is decoded, a name Vite writes needs none).
 * Checked on the raw path, as the router matches routes.
 */
const SAFE_KEY = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/

const viewerRequest = compileViewerRequest()

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  )

/** What `/app/` shows until the console is built (npm start tries to build it when missing). */
export const notBuiltPage = (dir: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>The console is not built</title></head>
<body><h1>The console is not built</h1>
<p>There is no <code>index.html</code> in <code>${escapeHtml(dir)}</code>.</p>
<p>Build it with <code>npm run build -w console</code> (<code>npm install</code> does it too), then reload this page.</p>
</body></html>
`

/** True when the console is built in `dir`. */
export const consoleBuilt = (dir: string) => existsSync(resolve(dir, 'index.html'))

/** The file `key` names inside `dir`, or undefined: never a path outside it, symlinks included. */
const fileIn = (dir: string, key: string) => {
  if (!SAFE_KEY.test(key)) return undefined
  const path = resolve(dir, key)
  try {
    const root = realpathSync(dir)
    const real = realpathSync(path)
    if (!real.startsWith(root + sep) || !statSync(real).isFile()) return undefined
    return real
  } catch {
    return undefined
  }
}

/**
 * The console's answer for a request, or undefined when the path is not the console's (`/app` and
 * `/app/...` are). `host` is the request's Host header: `grantApiUrl` in config.json is the origin
 * the browser used (localhost or 127.0.0.1 alike): here one server answers the console, the
 * management API and the grant API, so the address the console shows integrators is its own.
 */
export const serveConsole = (
  options: LocalConsoleOptions,
  request: { method: string; rawPath: string; host: string | undefined; localPort: number },
): ConsoleAnswer | undefined => {
  const { method, rawPath } = request
  // The recipient's pages (console/offer.html and holdings.html, their own entries of the build):
  // the link in an offer e-mail is `<origin>/offer#t=<token>`, a sign-in link
  // `<origin>/holdings#<token>`, outside /app/, with the console's headers.
  const recipientPage = RECIPIENT_PAGES.some((page) => page.path === rawPath)
  if (!recipientPage && rawPath !== CONSOLE_PATH.slice(0, -1) && !rawPath.startsWith(CONSOLE_PATH))
    return undefined
  const identity = options.identity
  const security = consoleSecurityHeaders(
    identity ? new URL(identity.cognitoEndpoint).origin : undefined,
    options.uploadOrigin,
  )
  const answer = (
    status: number,
    type: string,
    body: Buffer | string,
    headers: Record<string, string> = {},
  ): ConsoleAnswer => ({
    status,
    headers: { ...security, 'content-type': type, 'cache-control': 'no-store', ...headers },
    body,
  })
  const notFound = () => answer(404, 'text/plain; charset=utf-8', 'Not Found\n')

  if (!METHODS.includes(method)) {
    return answer(405, 'text/plain; charset=utf-8', 'Method Not Allowed\n', {
      allow: METHODS.join(', '),
    })
  }
  // `/offer` comes back as `/app/offer.html` (`/holdings` as holdings.html), a file of the build.
  const routed = viewerRequest(viewerRequestEvent(rawPath))
  if ('statusCode' in routed) {
    return answer(routed.statusCode, 'text/plain; charset=utf-8', `${routed.statusDescription}\n`, {
      ...Object.fromEntries(Object.entries(routed.headers).map(([name, h]) => [name, h.value])),
    })
  }
  const key = routed.uri.slice(CONSOLE_PATH.length)
  if (key === 'config.json') {
    if (!identity) {
      return answer(503, 'application/json', JSON.stringify({ message: 'Starting' }), {
        'retry-after': '1',
      })
    }
    // The pool's ids and the emulator's address: only to a loopback name (no DNS rebinding).
    if (!isLoopbackHost(request.host)) {
      const refused = notLoopbackProblem(`${CONSOLE_PATH}config.json`)
      return answer(refused.status, refused.type, refused.body)
    }
    const config: ConsoleConfig = {
      grantApiUrl: `http://${(request.host as string).trim().toLowerCase()}`,
      ...identity,
    }
    return answer(200, 'application/json', `${JSON.stringify(config, null, 2)}\n`, {
      'cache-control': CONSOLE_CACHE_CONTROL.pages,
    })
  }
  if (!consoleBuilt(options.dir))
    return answer(503, 'text/html; charset=utf-8', notBuiltPage(options.dir))
  const file = fileIn(options.dir, key)
  if (!file) return notFound()
  return answer(
    200,
    TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    readFileSync(file),
    {
      'cache-control': key.startsWith(`${CONSOLE_ASSETS_DIR}/`)
        ? CONSOLE_CACHE_CONTROL.assets
        : CONSOLE_CACHE_CONTROL.pages,
    },
  )
}
