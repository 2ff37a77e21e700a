import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { join } from 'node:path'
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda'
import { getAbsoluteFSPath } from 'swagger-ui-dist'
import { ROUTES } from '../functions/routes'
import { buildOpenApi } from '../lib/openapi'

export type LambdaHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>

export type RouteHandlers = Map<string, LambdaHandler>

/** API Gateway HTTP APIs refuse payloads above 10 MB before the function is called. */
const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024

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

type CompiledRoute = { routeKey: string; method: string; pattern: RegExp; params: string[] }

const compileRoutes = (routeKeys: Iterable<string>): CompiledRoute[] =>
  [...routeKeys]
    .filter((key) => key !== '$default')
    .map((routeKey) => {
      const [method = '', path = ''] = routeKey.split(' ')
      const params: string[] = []
      const source = path
        .split('/')
        .map((segment) => {
          const param = /^\{(\w+)\}$/.exec(segment)
          if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
          params.push(param[1] as string)
          return '([^/]+)'
        })
        .join('/')
      return { routeKey, method, pattern: new RegExp(`^${source}$`), params }
    })

const safeDecode = (value: string) => {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

const TEXT_CONTENT =
  /^(text\/|application\/([\w.+-]+\+)?(json|xml)|application\/x-www-form-urlencoded)/i

/** Builds the payload-2.0 event API Gateway would send for this request. */
const toEvent = (
  req: IncomingMessage,
  body: Buffer,
  routeKey: string,
  pathParameters: Record<string, string> | undefined,
): APIGatewayProxyEventV2 => {
  const url = new URL(req.url ?? '/', 'http://localhost')
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
  for (const [k, v] of url.searchParams) query[k] = query[k] === undefined ? v : `${query[k]},${v}`
  const now = new Date()
  const textual = TEXT_CONTENT.test(headers['content-type'] ?? '')
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
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
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...(pathParameters ? { pathParameters } : {}),
    ...(body.length > 0 ? { body: textual ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !textual,
  }
}

const lambdaContext = (requestId: string, functionName: string): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
  memoryLimitInMB: '256',
  awsRequestId: requestId,
  logGroupName: `/aws/lambda/${functionName}`,
  logStreamName: 'local',
  getRemainingTimeInMillis: () => 10_000,
  done: () => {},
  fail: () => {},
  succeed: () => {},
})

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
 * A plain node:http server that does what API Gateway does in front of the Lambda: match the
 * route, build the event, call the handler, and write back its result.
 */
export const createLocalApi = (handlers: RouteHandlers): Server => {
  const routes = compileRoutes(ROUTES.map((route) => route.routeKey))
  return createServer(async (req, res) => {
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    for await (const chunk of req) {
      size += (chunk as Buffer).length
      if (size > GATEWAY_MAX_BODY_BYTES) tooLarge = true
      else chunks.push(chunk as Buffer)
    }
    if (tooLarge) {
      res.writeHead(413, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ message: 'Request Entity Too Large' }))
      return
    }
    const method = req.method ?? 'GET'
    const path = new URL(req.url ?? '/', 'http://localhost').pathname
    const docs = serveDocs(method, path)
    if (docs) {
      res.writeHead(200, { 'content-type': docs.type })
      res.end(docs.body)
      return
    }
    let routeKey = '$default'
    let pathParameters: Record<string, string> | undefined
    for (const route of routes) {
      if (route.method !== method) continue
      const match = route.pattern.exec(path)
      if (!match) continue
      routeKey = route.routeKey
      pathParameters = Object.fromEntries(
        route.params.map((name, i) => [name, safeDecode(match[i + 1] as string)]),
      )
      break
    }
    const handler = handlers.get(routeKey)
    if (!handler) {
      // Handlers load once DynamoDB Local is up; until then, say so rather than 404.
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' })
      res.end(JSON.stringify({ message: 'Starting' }))
      return
    }
    const event = toEvent(req, Buffer.concat(chunks), routeKey, pathParameters)
    try {
      const result = await handler(event, lambdaContext(event.requestContext.requestId, routeKey))
      const body = result.body ?? ''
      res.writeHead(result.statusCode ?? 200, {
        ...result.headers,
        'apigw-requestid': event.requestContext.requestId,
      })
      res.end(result.isBase64Encoded ? Buffer.from(body, 'base64') : body)
    } catch {
      // What API Gateway answers when the function itself fails.
      res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ message: 'Internal Server Error' }))
    }
  })
}
