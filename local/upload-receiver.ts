import { createHash, randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { BATCH_LIMITS } from '../functions/domain/batch'
import {
  LOCAL_UPLOAD_BUCKET,
  LOCAL_UPLOAD_PATH,
  type LocalUploadStore,
} from '../functions/stores/uploads.local'
import { lingeringClose, readBody } from './gateway/request-body'
import { answerRefusal, localToolRefusal } from './local-guard'
import { checkUploadForm, S3Refusal } from './upload-form'

/**
 * S3's browser-based upload (a presigned POST) under `npm start` and in tests, at
 * `/_local/uploads/<bucket>`: what the upload bucket does in AWS, done by the local server. The
 * form is checked as S3 checks it (docs: "Browser-based uploads using POST", SigV4): the
 * signature of the policy with the credentials the local store signs with, the policy's
 * expiration, every condition (exact fields, `starts-with`, `content-length-range`), no field the
 * policy does not name; then the object is stored and the answer is S3's `204`. Refusals are S3's:
 * `403` with an XML `<Error>` (AccessDenied, SignatureDoesNotMatch, InvalidAccessKeyId), `400` for
 * a size outside the range (EntityTooLarge, EntityTooSmall) or a malformed form.
 *
 * CORS as the bucket's rule: answers carry `Access-Control-Allow-Origin` only for the console's
 * origins, so a page elsewhere cannot read them. Unlike S3, a POST from any other origin is
 * refused (403, problem+json) and so is a non-loopback Host (local/local-guard.ts): the form is
 * not preflighted, and anyone can sign one with the public local credentials.
 */
export type UploadReceiverOptions = {
  store: LocalUploadStore
  /** The console's origins (the bucket's CORS rule); read on each request. */
  allowedOrigins: () => readonly string[]
  /** S3's clock: real time (the functions' offset clock does not move S3's). Tests pass their own. */
  now?: () => number
}

/** The largest form read: the largest policy range the service signs, and its fields. */
export const UPLOAD_MAX_FORM_BYTES = BATCH_LIMITS.maxUploadBytes + 64 * 1024
const MAX_FORM_BYTES = UPLOAD_MAX_FORM_BYTES

/** Is this request target (`/path?query`) the receiver's? */
const isUploadPath = (rawPath: string) =>
  rawPath === LOCAL_UPLOAD_PATH || rawPath.startsWith(`${LOCAL_UPLOAD_PATH}/`)

/** Text content: S3 escapes only what XML requires there (quotes stay as they are). */
const xmlEscape = (text: string) =>
  text.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] as string)

export const createUploadReceiver = (options: UploadReceiverOptions) => {
  const now = options.now ?? Date.now

  const cors = (req: IncomingMessage): Record<string, string> => {
    const origin = req.headers.origin
    if (origin === undefined || !options.allowedOrigins().includes(origin)) return {}
    return {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'POST',
      vary: 'Origin',
    }
  }

  const answerError = (req: IncomingMessage, res: ServerResponse, refusal: S3Refusal) => {
    const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${refusal.code}</Code><Message>${xmlEscape(refusal.message)}</Message><RequestId>${randomUUID()}</RequestId></Error>\n`
    res.writeHead(refusal.status, {
      'content-type': 'application/xml',
      'content-length': Buffer.byteLength(body),
      ...cors(req),
    })
    res.end(body)
  }

  /** True when the request was this receiver's (its path), answered. */
  const handle = async (req: IncomingMessage, res: ServerResponse, rawPath: string) => {
    if (!isUploadPath(rawPath)) return false
    // Public local credentials: a loopback Host, and POSTs from the console, here or no page.
    const refusal = localToolRefusal(req, rawPath, {
      others: options.allowedOrigins(),
      json: false,
    })
    if (refusal) {
      answerRefusal(req, res, refusal)
      return true
    }
    const bucket = rawPath.slice(LOCAL_UPLOAD_PATH.length + 1).replace(/\/$/, '')
    const method = req.method ?? 'GET'
    if (bucket !== LOCAL_UPLOAD_BUCKET) {
      req.resume()
      answerError(
        req,
        res,
        new S3Refusal(404, 'NoSuchBucket', 'The specified bucket does not exist'),
      )
      return true
    }
    if (method === 'OPTIONS') {
      req.resume()
      const allowed = cors(req)
      const asked = req.headers['access-control-request-method']
      if (!allowed['access-control-allow-origin'] || asked !== 'POST') {
        answerError(
          req,
          res,
          new S3Refusal(
            403,
            'AccessForbidden',
            "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.",
          ),
        )
        return true
      }
      res.writeHead(200, { ...allowed, 'access-control-max-age': '3000', 'content-length': 0 })
      res.end()
      return true
    }
    if (method !== 'POST') {
      req.resume()
      answerError(
        req,
        res,
        new S3Refusal(
          405,
          'MethodNotAllowed',
          'The specified method is not allowed against this resource.',
        ),
      )
      return true
    }
    // Too large, by its length or by what came: S3's answer, then the rest is read and dropped.
    const body =
      Number(req.headers['content-length'] ?? 0) > MAX_FORM_BYTES
        ? 'too-large'
        : await readBody(req, MAX_FORM_BYTES)
    if (body === 'gone') return true
    if (body === 'too-large') {
      req.resume()
      res.once('finish', () => lingeringClose(req.socket, 5_000))
      answerError(
        req,
        res,
        new S3Refusal(
          400,
          'EntityTooLarge',
          'Your proposed upload exceeds the maximum allowed size',
        ),
      )
      return true
    }
    try {
      const object = await checkUploadForm(bucket, req.headers['content-type'], body, now)
      options.store.put(object.key, object.file, object.contentType)
      const etag = `"${createHash('md5').update(object.file).digest('hex')}"`
      res.writeHead(204, {
        etag,
        location: `${LOCAL_UPLOAD_PATH}/${bucket}/${encodeURIComponent(object.key)}`,
        ...cors(req),
      })
      res.end()
    } catch (error) {
      if (!(error instanceof S3Refusal)) throw error
      answerError(req, res, error)
    }
    return true
  }
  /** The receiver's requests (curl's `Expect: 100-continue` is answered for S3's sizes). */
  const takes = (target: string) => isUploadPath(target.split('?')[0] ?? '')
  return { handle, takes }
}

export type UploadReceiver = ReturnType<typeof createUploadReceiver>
