import { isUtf8 } from 'node:buffer'
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda'
import { FUNCTION_TIMEOUT_SECONDS } from '../../functions/routes'

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
export const toEvent = (
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
 * timeout (FUNCTION_TIMEOUT_SECONDS, what the stack configures, unless a test shortens it) from
 * the moment the invocation starts, never below zero.
 */
export const lambdaContext = (
  requestId: string,
  functionName: string,
  now: () => number = Date.now,
  timeoutMs: number = FUNCTION_TIMEOUT_SECONDS * 1000,
): Context => {
  const deadline = now() + timeoutMs
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
