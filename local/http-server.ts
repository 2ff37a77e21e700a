import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda'
import type { Runtime } from '../functions/composition'
import { matchRoute, ROUTES, type Route, type RouteId, USER_SCOPE } from '../functions/routes'
import { ROUTE_FACTORIES } from '../functions/wiring/route-factories'
import { type ClockControl, serveClock } from './dev-pages/clock-page'
import { type DevPage, type DevPagesOptions, serveDevPage } from './dev-pages/dev-pages'
import { type PipelineControl, servePipeline } from './dev-pages/pipeline-page'
import { answerOnSocket, gatewayAnswer, statusOfClientError } from './gateway/answers'
import { lambdaContext, splitTarget, toEvent } from './gateway/event'
import { lingeringClose, readBody } from './gateway/request-body'
import { createJwtAuthorizer, type JwtAuthorizer, type JwtAuthorizerConfig } from './jwt-authorizer'
import {
  answerRefusal,
  hostHeaderCount,
  isLocalToolPath,
  localToolRefusal,
  repeatedHostProblem,
} from './local-guard'
import { UPLOAD_MAX_FORM_BYTES, type UploadReceiver } from './upload-receiver'

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

/**
 * `mailFile` and `console` (local/dev-pages/): the developer pages, read on each request like
 * `authorizer`.
 */
export type LocalApiOptions = DevPagesOptions & {
  /** The clock the Lambda context counts down with (tests move it). Default `Date.now`. */
  now?: () => number
  /**
   * The functions' timeout, after which the gateway answers 500. Default FUNCTION_TIMEOUT_SECONDS
   * (the stack's); tests of what happens past it shorten it rather than wait 10 s.
   */
  functionTimeoutMs?: number
  headersTimeoutMs?: number
  requestTimeoutMs?: number
  timeoutCheckEveryMs?: number
  lingerMs?: number
  /**
   * Tests: each request's handling as it arrives, settled once it is answered, dropped or its
   * function has returned; a test waits on these to know the server is done with a case.
   */
  onServe?: (served: Promise<void>) => void
  /**
   * The JWT authorizer in front of `user` routes: the pool's issuer and app client (npm start: the
   * embedded emulator's; tests: the run's). Without it every `user` route answers 401, as a gateway
   * that cannot verify a token lets nothing through. It reads the clock `now`.
   */
  authorizer?: JwtAuthorizerConfig
  /** Told why the authorizer refused a request (what API Gateway logs as its error). */
  onAuthorizerRefusal?: (refusal: { routeKey: string; status: number; reason: string }) => void
  /**
   * Routing: functions/routes.ts's routes, unless a test adds some of its own (a `user` route with
   * a fake handler, say); their handlers go in `handlers` under their route keys.
   */
  matchRoute?: (
    method: string,
    rawPath: string,
  ) => { route: Route; pathParameters: Record<string, string> } | undefined
  /**
   * The local pipeline (local/pipeline.ts: stream, queues, consumers): `/_local/pipeline` shows it
   * and `/_local/pipeline/drain` waits for it (local/dev-pages/pipeline-page.ts). Read on each request.
   */
  pipeline?: PipelineControl
  /**
   * npm start's offset clock and its sweep: `/_local/clock` reads and moves it
   * (local/dev-pages/clock-page.ts). Read on each request.
   */
  clock?: ClockControl
  /**
   * S3's browser-based upload at `/_local/uploads/<bucket>` (local/upload-receiver.ts): what the
   * upload bucket does in AWS, with S3's limits rather than the gateway's 10 MB.
   */
  uploads?: UploadReceiver
}

/**
 * The very handlers the stack deploys, one per route, built from their factories over the
 * caller's runtime (its configuration, clients and clocks): nothing is read from this process's
 * environment, and no Lambda entry module is imported. Each is built on its route's first
 * request (its cold start), once.
 */
export const buildRouteHandlers = (runtime: Runtime): RouteHandlers =>
  new Map(ROUTES.map((route) => [route.routeKey, routeHandler(route.id, runtime)]))

/**
 * Every route's handler built at once, every module loaded now: for a caller that loads the
 * handlers in a module registry of its own (a test's `jest.isolateModulesAsync`).
 */
export const loadRouteHandlers = async (runtime: Runtime): Promise<RouteHandlers> =>
  new Map(
    await Promise.all(
      ROUTES.map(async (route) => {
        const make = await ROUTE_FACTORIES[route.id]()
        return [route.routeKey, make(runtime) as unknown as LambdaHandler] as const
      }),
    ),
  )

/** One route's handler, its module loaded and its factory run on the first request only. */
export const routeHandler = (id: RouteId, runtime: Runtime): LambdaHandler => {
  let built: Promise<LambdaHandler> | undefined
  return async (event, context) => {
    built ??= ROUTE_FACTORIES[id]().then((make) => make(runtime) as unknown as LambdaHandler)
    return (await built)(event, context)
  }
}

const ignore = () => {}

/** The answer of a local tool (pipeline, clock) or developer page, or undefined: the API's. */
const serveLocalPage = async (
  options: LocalApiOptions,
  req: IncomingMessage,
  raw: ReturnType<typeof splitTarget>,
  body: Buffer,
): Promise<DevPage | undefined> => {
  const method = req.method ?? 'GET'
  const host = req.headers.host
  const tool =
    (await servePipeline(method, raw.rawPath, raw.rawQueryString, host, options.pipeline, body)) ??
    (await serveClock(method, raw.rawPath, host, body, options.clock))
  if (tool) {
    const headers = { 'content-type': tool.type, 'cache-control': 'no-store' }
    return { status: tool.status, headers, body: tool.body }
  }
  const localPort = req.socket.localPort ?? 0
  return serveDevPage(options, { method, rawPath: raw.rawPath, host, localPort })
}

/**
 * The JWT authorizer of the options as they are now: `authorizer` is read on each request (npm
 * start sets it once the emulator is up), and its verifier rebuilt only when it changes.
 */
const currentAuthorizer = (options: LocalApiOptions, now: () => number) => {
  let authorizer: { config: JwtAuthorizerConfig; verify: JwtAuthorizer } | undefined
  const authorizerNow = () => {
    const config = options.authorizer
    if (!config) return undefined
    if (authorizer?.config !== config) {
      authorizer = { config, verify: createJwtAuthorizer(config, { now }) }
    }
    return authorizer.verify
  }
  return authorizerNow
}

/**
 * The gateway's refusals before the body is read (HTTP version, Host, the target's form, the local
 * tools' guard): true when `req` was answered here.
 */
const refusedBeforeBody = (
  req: IncomingMessage,
  res: ServerResponse,
  target: string,
  raw: ReturnType<typeof splitTarget>,
  options: LocalApiOptions,
  refuse: (status: 400 | 413) => void,
): boolean => {
  // Only HTTP/1.0 and 1.1 (Node's parser also takes an HTTP/0.9 request line); HTTP/1.1 requires
  // Host (RFC 9112 3.2). Only the origin form (`/path?query`) is a request for this API: the
  // absolute form (`http://host/path`) and `*` are refused, so no host is read from the target.
  if (
    (req.httpVersion !== '1.1' && req.httpVersion !== '1.0') ||
    (req.httpVersion === '1.1' && req.headers.host === undefined) ||
    !target.startsWith('/')
  ) {
    refuse(400)
    return true
  }
  // RFC 9112 3.2: exactly one Host. Node keeps the first of several, so check the raw headers.
  const hosts = hostHeaderCount(req.rawHeaders)
  if (hosts > 1) {
    answerRefusal(req, res, repeatedHostProblem(hosts), true)
    return true
  }
  // The local tools: loopback Host; writes from this server's pages (or no page) only, in JSON.
  // The upload receiver applies its own variant (S3's form, the console's origins).
  if (isLocalToolPath(raw.rawPath) && !options.uploads?.takes(target)) {
    const refusal = localToolRefusal(req, raw.rawPath)
    if (refusal) {
      answerRefusal(req, res, refusal)
      return true
    }
  }
  return false
}

type VerifiedJwt = { claims: Record<string, string>; scopes: string[] | null }

/**
 * The route's authorizer, before the function: a refused request never reaches it. `{ jwt }` (none
 * for a route without one) to go on, undefined when the request ends here.
 */
const authorizeRoute = async (
  req: IncomingMessage,
  res: ServerResponse,
  matched: ReturnType<NonNullable<LocalApiOptions['matchRoute']>>,
  routeKey: string,
  authorizerNow: () => JwtAuthorizer | undefined,
  options: LocalApiOptions,
  gone: () => boolean,
): Promise<{ jwt?: VerifiedJwt } | undefined> => {
  let jwt: VerifiedJwt | undefined
  if (matched?.route.auth === 'user') {
    const verifier = authorizerNow()
    const verdict = verifier
      ? await verifier.authorize(req.headers.authorization, [USER_SCOPE])
      : ({ ok: false, status: 401, reason: 'no authorizer is configured' } as const)
    if (gone()) return undefined
    if (!verdict.ok) {
      options.onAuthorizerRefusal?.({ routeKey, status: verdict.status, reason: verdict.reason })
      const challenge = 'wwwAuthenticate' in verdict ? verdict.wwwAuthenticate : undefined
      gatewayAnswer(res, verdict.status, false, challenge ? { 'www-authenticate': challenge } : {})
      return
    }
    jwt = { claims: verdict.claims, scopes: verdict.scopes }
  }
  return { jwt }
}

/** The function's result, or 'failed' when it threw or outran its timeout. */
const runFunction = async (
  handler: LambdaHandler,
  event: APIGatewayProxyEventV2,
  context: Context,
): Promise<APIGatewayProxyStructuredResultV2 | 'failed'> => {
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
  return result
}

/** The function's result as API Gateway writes it back; one Node refuses to send is a 500. */
const writeResult = (
  res: ServerResponse,
  result: APIGatewayProxyStructuredResultV2,
  requestId: string,
) => {
  try {
    const responseBody = result.body ?? ''
    res.writeHead(result.statusCode ?? 200, {
      ...result.headers,
      ...(result.cookies?.length ? { 'set-cookie': result.cookies } : {}),
      'apigw-requestid': requestId,
    })
    res.end(result.isBase64Encoded ? Buffer.from(responseBody, 'base64') : responseBody)
  } catch {
    // A result Node refuses to send (a bad status or header value): the function's fault.
    if (res.headersSent) res.destroy()
    else gatewayAnswer(res, 500)
  }
}

/** What never becomes a request: broken HTTP and CONNECT, answered on the socket. */
const answerBrokenClients = (server: Server, open: WeakMap<Duplex, Set<ServerResponse>>) => {
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
  const authorizerNow = currentAuthorizer(options, now)
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
    const raw = splitTarget(target)
    if (refusedBeforeBody(req, res, target, raw, options, refuse)) return
    // The upload bucket's stand-in is S3, not API Gateway: its own size limits and answers.
    if (options.uploads && (await options.uploads.handle(req, res, raw.rawPath))) return
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
    // The local tools and developer pages first (docs, mail sink, console): the rest is the API's.
    const page = await serveLocalPage(options, req, raw, body)
    if (page) {
      res.writeHead(page.status, page.headers)
      res.end(method === 'HEAD' ? undefined : page.body)
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
    const authorized = await authorizeRoute(
      req,
      res,
      matched,
      routeKey,
      authorizerNow,
      options,
      () => gone,
    )
    if (!authorized) return
    const { jwt } = authorized
    const started = now()
    const event = toEvent(req, raw, body, routeKey, matched?.pathParameters, started)
    // Where API Gateway puts what its JWT authorizer verified (APIGatewayProxyEventV2WithJWTAuthorizer).
    if (jwt) Object.assign(event.requestContext, { authorizer: { jwt } })
    const context = lambdaContext(
      event.requestContext.requestId,
      routeKey,
      now,
      options.functionTimeoutMs,
    )
    const result = await runFunction(handler, event, context)
    if (result === 'failed') {
      // What API Gateway answers when the function throws or times out.
      if (!gone) gatewayAnswer(res, 500)
      return
    }
    // The client left while the function ran: the function's work stands (as in AWS), but
    // there is nobody to answer.
    if (gone) return
    writeResult(res, result, event.requestContext.requestId)
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const served = serve(req, res).catch(() => {
      // Nothing above should throw; if something does, this request ends, and only this one.
      if (!res.headersSent && !res.destroyed) gatewayAnswer(res, 500, true)
      else res.destroy()
    })
    options.onServe?.(served)
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
    const length = Number(req.headers['content-length'] ?? 0)
    const limit = options.uploads?.takes(req.url ?? '')
      ? UPLOAD_MAX_FORM_BYTES
      : GATEWAY_MAX_BODY_BYTES
    if (length <= limit) res.writeContinue()
    onRequest(req, res)
  })
  answerBrokenClients(server, open)
  return server
}
