import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { PROBLEM_CONTENT_TYPE, problemType } from '../functions/http/problem'
import { isLoopbackHost, notLoopbackProblem } from './loopback-host'

/**
 * What the local server asks of every request to its own tools under `/_local/` (never in AWS):
 * - a loopback Host (local/loopback-host.ts), whatever the method: no page that rebound its own
 *   name to 127.0.0.1 reads or moves them;
 * - on a write (any method but GET, HEAD, OPTIONS), an `Origin` that is absent (curl, SDKs, Node)
 *   or this server's own: a page of another origin, loopback ones included, moves nothing;
 * - on a write, a JSON body (`Content-Type: application/json`): a cross-origin form or no-cors
 *   fetch cannot send one without a CORS preflight, which these tools never grant.
 * The upload receiver (local/upload-receiver.ts) takes S3's multipart form instead of JSON, from
 * the console's origins as well (the bucket's CORS rule).
 */
export type LocalProblem = { status: number; type: string; body: string }

const LOCAL_PREFIX = '/_local'

/** The methods that change nothing: every other one is a write. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Writes that take no body: the drain only waits for the pipeline, so there is no JSON to ask for. */
const BODILESS_WRITES = new Set([`${LOCAL_PREFIX}/pipeline/drain`])

const JSON_MEDIA_TYPE = /^application\/json\s*(?:;.*)?$/i

export const localProblem = (
  status: number,
  code: string,
  title: string,
  detail: string,
): LocalProblem => ({
  status,
  type: PROBLEM_CONTENT_TYPE,
  body: `${JSON.stringify({ type: problemType(code), title, status, code, detail, requestId: randomUUID() })}\n`,
})

/** Is this raw path one of the local server's own tools (`/_local` and below)? */
export const isLocalToolPath = (rawPath: string) =>
  rawPath === LOCAL_PREFIX || rawPath.startsWith(`${LOCAL_PREFIX}/`)

/**
 * How many Host headers the request carries. Node's parser keeps only the first in `headers`, so
 * `Host: localhost` then `Host: evil.example` would pass as localhost: count the raw ones.
 */
export const hostHeaderCount = (rawHeaders: readonly string[]) =>
  rawHeaders.filter((value, i) => i % 2 === 0 && value.toLowerCase() === 'host').length

export const repeatedHostProblem = (count: number) =>
  localProblem(
    400,
    'host-header-repeated',
    'More than one Host header',
    `The request has ${count} Host headers; HTTP/1.1 allows exactly one (RFC 9112, section 3.2), so which host it is for is ambiguous.`,
  )

/** Is `origin` absent, one of `others`, or the origin the (loopback) Host header names? */
export const isOwnOrigin = (
  origin: string | undefined,
  host: string | undefined,
  others: readonly string[] = [],
) => {
  if (origin === undefined || others.includes(origin)) return true
  if (host === undefined) return false
  try {
    return origin.trim().toLowerCase() === new URL(`http://${host.trim()}`).origin
  } catch {
    return false
  }
}

/**
 * The refusal this request to a local tool earns, or undefined when it may go on. `others`: more
 * origins taken on writes (the console's, for the upload receiver); `json: false` for a write whose
 * body is not JSON (S3's multipart form).
 */
export const localToolRefusal = (
  req: IncomingMessage,
  rawPath: string,
  { others = [], json = true }: { others?: readonly string[]; json?: boolean } = {},
): LocalProblem | undefined => {
  const host = req.headers.host
  if (!isLoopbackHost(host)) return notLoopbackProblem(rawPath)
  if (SAFE_METHODS.has(req.method ?? 'GET')) return undefined
  const origin = req.headers.origin
  if (!isOwnOrigin(origin, host, others)) {
    return localProblem(
      403,
      'local-origin-not-allowed',
      "Only this server's own pages may write here",
      `${rawPath} takes writes only from this server's own origin (http://${host?.trim()}) or from a client that sends no Origin (curl, an SDK); this request came from ${origin}.`,
    )
  }
  const contentType = req.headers['content-type']
  if (json && !BODILESS_WRITES.has(rawPath) && !JSON_MEDIA_TYPE.test(contentType?.trim() ?? '')) {
    return localProblem(
      415,
      'local-body-not-json',
      'The body must be JSON',
      `${rawPath} takes a JSON body, sent with Content-Type: application/json (this request's is ${contentType === undefined ? 'missing' : `"${contentType}"`}), so no web page can send it without the server's consent.`,
    )
  }
  return undefined
}

/**
 * Answers a refusal before anything is read: the body is read and dropped, nothing kept or
 * written. The connection stays open for the client's next request unless `close` (a request that
 * breaks HTTP): then the answer says so and the server closes it.
 */
export const answerRefusal = (
  req: IncomingMessage,
  res: ServerResponse,
  problem: LocalProblem,
  close = false,
) => {
  req.resume()
  res.writeHead(problem.status, {
    'content-type': problem.type,
    'content-length': Buffer.byteLength(problem.body),
    'cache-control': 'no-store',
    ...(close ? { connection: 'close' } : {}),
  })
  res.end(problem.body)
}
