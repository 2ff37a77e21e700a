import { isUtf8 } from 'node:buffer'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http'
import { join } from 'node:path'
import type { Duplex } from 'node:stream'
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda'
import { getAbsoluteFSPath } from 'swagger-ui-dist'
import {
  FUNCTION_TIMEOUT_SECONDS,
  matchRoute,
  ROUTES,
  type Route,
  USER_SCOPE,
} from '../functions/routes'
import { buildOpenApi } from '../lib/openapi'
import { type LocalConsoleOptions, serveConsole } from './console-site'
import { createJwtAuthorizer, type JwtAuthorizer, type JwtAuthorizerConfig } from './jwt-authorizer'
import { isLoopbackHost, notLoopbackProblem } from './loopback-host'
import { mailPage, readMail } from './mail-sink'

export type LambdaHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>

export type RouteHandlers = Map<string, LambdaHandler>

/** API Gateway HTTP APIs refuse payloads above 10 MB before the function is called. */
export const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024

/**
 * How long a client may take to send a request. Generous for real clients (the headers of any
 * real request arrive in one packet; 10 MB at 35 kB/s fits in 5 minutes), yet a client that stops
 * half-way is answered 408 and disconnected instead of holding its socket forever.
 */
export const GATEWAY_TIMEOUTS = {
  /** The request line and every header. */
  headersMs: 30_000,
  /** The whole request, body included. */
  requestMs: 300_000,
  /** How often Node.js looks for requests past these limits. */
  checkEveryMs: 5_000,
  /** After a 413, how long the rest of the body is read and dropped before the connection goes. */
  lingerMs: 5_000,
} as const

export type LocalApiOptions = {
  /** The clock the Lambda context counts down with (tests move it). Default `Date.now`. */
  now?: () => number
  headersTimeoutMs?: number
  requestTimeoutMs?: number
  timeoutCheckEveryMs?: number
  lingerMs?: number
  /**
   * The JWT authorizer in front of `user` routes: the pool's issuer and app client (npm start: the
   * embedded emulator's; tests: the run's). Without it every `user` route answers 401, as a gateway
   * that cannot verify a token lets nothing through. It reads the clock `now`.
   */
  authorizer?: JwtAuthorizerConfig
  /** Told why the authorizer refused a request (what API Gateway logs as its error). */
  onAuthorizerRefusal?: (refusal: { routeKey: string; status: number; reason: string }) => void
  /** The mail sink `GET /_local/mail` and `/_local/mail.json` show (npm start and tests only). */
  mailFile?: string
  /**
   * The issuer console at `/app/` (local/console-site.ts), as CloudFront serves it in AWS. Read on
   * each request, like `authorizer`. Without it, `/app/...` is an unknown path of the API.
   */
  console?: LocalConsoleOptions
  /**
   * Routing: functions/routes.ts's routes, unless a test adds some of its own (a `user` route with
   * a fake handler, say); their handlers go in `handlers` under their route keys.
   */
  matchRoute?: (
    method: string,
    rawPath: string,
  ) => { route: Route; pathParameters: Record<string, string> } | undefined
}

/** Imports the very handlers the stack deploys, one per route. Call after the environment is set. */
export const loadRouteHandlers = async (): Promise<RouteHandlers> => {
  const handlers: RouteHandlers = new Map()
  for (const route of ROUTES) {
    // Relative to this file, which works both as ESM (tsx) and as CommonJS (jest).
    const module = (await import(`../${route.entry}`)) as { handler: LambdaHandler }
    handlers.set(route.routeKey, module.handler)
  }
  return handlers
}

/** The request target as sent, split at the first `?`: no host is ever read out of it. */
export const splitTarget = (target: string) => {
  const mark = target.indexOf('?')
  return mark === -1
    ? { rawPath: target, rawQueryString: '' }
    : { rawPath: target.slice(0, mark), rawQueryString: target.slice(mark + 1) }
}

const TEXT_CONTENT =
  /^(text\/|application\/([\w.+-]+\+)?(json|xml)|application\/x-www-form-urlencoded)/i

/** Builds the payload-2.0 event API Gateway would send for this request. */
const toEvent = (
  req: IncomingMessage,
  target: { rawPath: string; rawQueryString: string },
  body: Buffer,
  routeKey: string,
  pathParameters: Record<string, string> | undefined,
  now: number,
): APIGatewayProxyEventV2 => {
  const headers: Record<string, string> = {}
  let cookies: string[] | undefined
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] as string).toLowerCase()
    const value = req.rawHeaders[i + 1] as string
    if (name === 'cookie') {
      cookies = [...(cookies ?? []), ...value.split(/;\s*/)]
      continue
    }
    // Like API Gateway, repeated headers arrive as one comma-joined value.
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`
  }
  const query: Record<string, string> = {}
  for (const [k, v] of new URLSearchParams(target.rawQueryString)) {
    query[k] = query[k] === undefined ? v : `${query[k]},${v}`
  }
  // Text that is valid UTF-8 travels as a string; anything else as base64, so no byte is lost
  // (or silently replaced with U+FFFD) on the way to the function.
  const asText = TEXT_CONTENT.test(headers['content-type'] ?? '') && isUtf8(body)
  return {
    version: '2.0',
    routeKey,
    rawPath: target.rawPath,
    rawQueryString: target.rawQueryString,
    ...(cookies ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
      http: {
        method: req.method ?? 'GET',
        path: target.rawPath,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
    ...(pathParameters ? { pathParameters } : {}),
    ...(body.length > 0 ? { body: asText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !asText,
  }
}

/**
 * The context Lambda hands a function. Its remaining time counts down from the function's
 * timeout (FUNCTION_TIMEOUT_SECONDS, what the stack configures) from the moment the invocation
 * starts, never below zero.
 */
export const lambdaContext = (
  requestId: string,
  functionName: string,
  now: () => number = Date.now,
): Context => {
  const deadline = now() + FUNCTION_TIMEOUT_SECONDS * 1000
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  }
}

const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Virtual-share grant API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="docs"></div><script src="/docs/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs' })</script></body></html>`

const DOCS_ASSETS: Record<string, string> = {
  '/docs/swagger-ui.css': 'text/css; charset=utf-8',
  '/docs/swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
}

/** The contract and its rendered docs, served from node_modules (no CDN), local server only. */
const serveDocs = (method: string, path: string) => {
  if (method !== 'GET') return undefined
  if (path === '/openapi.json') {
    return { type: 'application/json', body: JSON.stringify(buildOpenApi(), null, 2) }
  }
  if (path === '/docs' || path === '/docs/')
    return { type: 'text/html; charset=utf-8', body: DOCS_PAGE }
  const type = DOCS_ASSETS[path]
  if (type)
    return { type, body: readFileSync(join(getAbsoluteFSPath(), path.slice('/docs/'.length))) }
  return undefined
}

/**
 * The local server's own pages, never in the stack: the mail sink (local/mail-sink.ts), newest
 * first, as a page and as JSON (`to`, `subject`, `text`, `sentAt`).
 */
const serveLocal = (
  method: string,
  path: string,
  host: string | undefined,
  mailFile: string | undefined,
) => {
  if (method !== 'GET' || mailFile === undefined) return undefined
  if (path !== '/_local/mail.json' && path !== '/_local/mail') return undefined
  // Temporary passwords and reset codes: never to a page that rebound its own name to us.
  if (!isLoopbackHost(host)) return notLoopbackProblem(path)
  if (path === '/_local/mail.json') {
    return {
      status: 200,
      type: 'application/json',
      body: JSON.stringify(readMail(mailFile), null, 2),
    }
  }
  return { status: 200, type: 'text/html; charset=utf-8', body: mailPage(readMail(mailFile)) }
}

/** The answers API Gateway gives itself, without calling a function: `{"message": ...}` JSON. */
const GATEWAY_MESSAGES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  408: 'Request Timeout',
  413: 'Request Entity Too Large',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
}

const gatewayBody = (status: number) =>
  JSON.stringify({ message: GATEWAY_MESSAGES[status] ?? STATUS_CODES[status] })

/** A gateway answer through the request's response; `close` when the connection cannot go on. */
const gatewayAnswer = (
  res: ServerResponse,
  status: number,
  close = false,
  headers: Record<string, string> = {},
) => {
  const body = gatewayBody(status)
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'apigw-requestid': randomUUID(),
    ...(close ? { connection: 'close' } : {}),
  })
  res.end(body)
}

/** A gateway answer written straight to the socket, for what never became a request, then closed. */
const answerOnSocket = (socket: Duplex, status: number) => {
  if (socket.writable) {
    const body = gatewayBody(status)
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\napigw-requestid: ${randomUUID()}\r\nconnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}

/** What Node's HTTP parser reports, as the gateway's status (everything else is 400). */
const statusOfClientError = (code: string | undefined) => {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408
  if (code === 'HPE_HEADER_OVERFLOW') return 431
  return 400
}

type Body = Buffer | 'too-large' | 'gone'

/**
 * Reads a request body, keeping at most `limit` bytes: past it, stops keeping and says so at once.
 * A client that goes away mid-body (reset, closed, timed out) is 'gone', never an exception.
 */
const readBody = (req: IncomingMessage, limit: number) =>
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

const ignore = () => {}

/** Ends our side of a connection now, and destroys it once the client is done or `ms` passed. */
const lingeringClose = (socket: Duplex, ms: number) => {
  socket.end()
  const timer = setTimeout(() => socket.destroy(), ms)
  timer.unref()
  socket.once('close', () => clearTimeout(timer))
}

/**
 * A plain node:http server that does what API Gateway does in front of the Lambda: match the
 * route on the raw path, build the event, call the handler, and write back its result. Whatever a
 * client does (broken HTTP, a body that never ends, a socket closed at any moment) ends that
 * request only, never the process.
 */
export const createLocalApi = (handlers: RouteHandlers, options: LocalApiOptions = {}): Server => {
  const now = options.now ?? Date.now
  const lingerMs = options.lingerMs ?? GATEWAY_TIMEOUTS.lingerMs
  const route = options.matchRoute ?? matchRoute
  // `authorizer` and `mailFile` are read on each request: npm start sets them once the emulator is
  // up, as it fills `handlers` once DynamoDB Local is.
  let authorizer: { config: JwtAuthorizerConfig; verify: JwtAuthorizer } | undefined
  const authorizerNow = () => {
    const config = options.authorizer
    if (!config) return undefined
    if (authorizer?.config !== config) {
      authorizer = { config, verify: createJwtAuthorizer(config, { now }) }
    }
    return authorizer.verify
  }
  /** Responses not yet finished, per connection (pipelined requests queue several). */
  const open = new WeakMap<Duplex, Set<ServerResponse>>()

  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    // A request whose client vanishes emits 'error' (ECONNRESET, "aborted"); unheard, it would be
    // an uncaught exception. The same for a response written to a closed socket.
    req.on('error', ignore)
    res.on('error', ignore)
    const socket = req.socket
    const responses = open.get(socket) ?? new Set()
    open.set(socket, responses.add(res))
    let gone = false
    res.once('close', () => {
      gone = !res.writableFinished
      responses.delete(res)
    })

    /**
     * A gateway refusal before the function: the rest of the body is read and dropped (nothing
     * kept). Once the answer is out, the connection is closed our way (FIN), and for good when the
     * client is done or after `lingerMs`: closing at once, with the client still sending, would
     * reset the connection and could destroy the answer before the client reads it.
     */
    const refuse = (status: 400 | 413) => {
      req.resume()
      res.once('finish', () => lingeringClose(socket, lingerMs))
      gatewayAnswer(res, status)
    }
    const target = req.url ?? ''
    // Only HTTP/1.0 and 1.1 (Node's parser also takes an HTTP/0.9 request line); HTTP/1.1 requires
    // Host (RFC 9112 3.2). Only the origin form (`/path?query`) is a request for this API: the
    // absolute form (`http://host/path`) and `*` are refused, so no host is read from the target.
    if (
      (req.httpVersion !== '1.1' && req.httpVersion !== '1.0') ||
      (req.httpVersion === '1.1' && req.headers.host === undefined) ||
      !target.startsWith('/')
    ) {
      refuse(400)
      return
    }
    if (Number(req.headers['content-length'] ?? 0) > GATEWAY_MAX_BODY_BYTES) {
      refuse(413)
      return
    }
    const body = await readBody(req, GATEWAY_MAX_BODY_BYTES)
    if (body === 'too-large') {
      refuse(413)
      return
    }
    // The client left before its request was complete: API Gateway would never call the function.
    if (body === 'gone' || gone) return

    const method = req.method ?? 'GET'
    const raw = splitTarget(target)
    const docs = serveDocs(method, raw.rawPath)
    if (docs) {
      res.writeHead(200, { 'content-type': docs.type })
      res.end(docs.body)
      return
    }
    const local = serveLocal(method, raw.rawPath, req.headers.host, options.mailFile)
    if (local) {
      res.writeHead(local.status, { 'content-type': local.type, 'cache-control': 'no-store' })
      res.end(local.body)
      return
    }
    const site = options.console
      ? serveConsole(options.console, {
          method,
          rawPath: raw.rawPath,
          host: req.headers.host,
          localPort: socket.localPort ?? 0,
        })
      : undefined
    if (site) {
      res.writeHead(site.status, {
        ...site.headers,
        'content-length': Buffer.byteLength(site.body),
      })
      res.end(method === 'HEAD' ? undefined : site.body)
      return
    }
    const matched = route(method, raw.rawPath)
    const routeKey = matched?.route.routeKey ?? '$default'
    const handler = handlers.get(routeKey)
    if (!handler) {
      // Handlers load once DynamoDB Local is up; until then, say so rather than 404.
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' })
      res.end(JSON.stringify({ message: 'Starting' }))
      return
    }
    // The route's authorizer, before the function: a refused request never reaches it.
    let jwt: { claims: Record<string, string>; scopes: string[] | null } | undefined
    if (matched?.route.auth === 'user') {
      const verifier = authorizerNow()
      const verdict = verifier
        ? await verifier.authorize(req.headers.authorization, [USER_SCOPE])
        : ({ ok: false, status: 401, reason: 'no authorizer is configured' } as const)
      if (gone) return
      if (!verdict.ok) {
        options.onAuthorizerRefusal?.({ routeKey, status: verdict.status, reason: verdict.reason })
        const challenge = 'wwwAuthenticate' in verdict ? verdict.wwwAuthenticate : undefined
        gatewayAnswer(
          res,
          verdict.status,
          false,
          challenge ? { 'www-authenticate': challenge } : {},
        )
        return
      }
      jwt = { claims: verdict.claims, scopes: verdict.scopes }
    }
    const started = now()
    const event = toEvent(req, raw, body, routeKey, matched?.pathParameters, started)
    // Where API Gateway puts what its JWT authorizer verified (APIGatewayProxyEventV2WithJWTAuthorizer).
    if (jwt) Object.assign(event.requestContext, { authorizer: { jwt } })
    const context = lambdaContext(event.requestContext.requestId, routeKey, now)
    let timer: NodeJS.Timeout | undefined
    // Lambda stops a function at its timeout; here it runs on, but its answer is no longer taken.
    const timedOut = new Promise<'failed'>((resolve) => {
      timer = setTimeout(() => resolve('failed'), context.getRemainingTimeInMillis())
      timer.unref()
    })
    let result: APIGatewayProxyStructuredResultV2 | 'failed'
    try {
      result = await Promise.race([handler(event, context), timedOut])
    } catch {
      result = 'failed'
    } finally {
      clearTimeout(timer)
    }
    if (result === 'failed') {
      // What API Gateway answers when the function throws or times out.
      if (!gone) gatewayAnswer(res, 500)
      return
    }
    // The client left while the function ran: the function's work stands (as in AWS), but
    // there is nobody to answer.
    if (gone) return
    try {
      const responseBody = result.body ?? ''
      res.writeHead(result.statusCode ?? 200, {
        ...result.headers,
        ...(result.cookies?.length ? { 'set-cookie': result.cookies } : {}),
        'apigw-requestid': event.requestContext.requestId,
      })
      res.end(result.isBase64Encoded ? Buffer.from(responseBody, 'base64') : responseBody)
    } catch {
      // A result Node refuses to send (a bad status or header value): the function's fault.
      if (res.headersSent) res.destroy()
      else gatewayAnswer(res, 500)
    }
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    serve(req, res).catch(() => {
      // Nothing above should throw; if something does, this request ends, and only this one.
      if (!res.headersSent && !res.destroyed) gatewayAnswer(res, 500, true)
      else res.destroy()
    })
  }

  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? GATEWAY_TIMEOUTS.headersMs,
      requestTimeout: options.requestTimeoutMs ?? GATEWAY_TIMEOUTS.requestMs,
      connectionsCheckingInterval: options.timeoutCheckEveryMs ?? GATEWAY_TIMEOUTS.checkEveryMs,
      // A missing Host is answered above, in the gateway's JSON, instead of Node's empty 400.
      requireHostHeader: false,
    },
    onRequest,
  )
  // `Expect: 100-continue`: a body declared too large is refused before the client sends it.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (Number(req.headers['content-length'] ?? 0) <= GATEWAY_MAX_BODY_BYTES) res.writeContinue()
    onRequest(req, res)
  })
  // Broken HTTP (bad request line, bad or conflicting Content-Length, Content-Length with
  // Transfer-Encoding, a bad chunk, headers too large), and requests too slow to arrive.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const writing = [...(open.get(socket) ?? [])].some((res) => res.headersSent)
    // A response already under way cannot be followed by another one on the same connection.
    if (error.code === 'ECONNRESET' || writing) socket.destroy()
    else answerOnSocket(socket, statusOfClientError(error.code))
  })
  // CONNECT asks for a tunnel; API Gateway is no proxy.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    req.on('error', ignore)
    socket.on('error', ignore)
    answerOnSocket(socket, 400)
  })
  return server
}
