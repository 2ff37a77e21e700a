import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { BATCH_LIMITS } from '../functions/domain/batch'
import {
  LOCAL_UPLOAD_BUCKET,
  LOCAL_UPLOAD_CREDENTIALS,
  LOCAL_UPLOAD_PATH,
  LOCAL_UPLOAD_REGION,
  type LocalUploadStore,
} from '../functions/stores/uploads.local'
import { lingeringClose, readBody } from './gateway/request-body'
import { answerRefusal, localToolRefusal } from './local-guard'

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

/** Fields S3 leaves out of the "every field in the policy" rule. */
const UNSIGNED = new Set(['policy', 'x-amz-signature', 'file'])

/** Text content: S3 escapes only what XML requires there (quotes stay as they are). */
const xmlEscape = (text: string) =>
  text.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] as string)

class S3Refusal {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly message: string,
  ) {}
}

type Condition = { field: string; check: (value: string | undefined) => boolean; text: string }

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest()

/** SigV4's signing key: date, region, service, `aws4_request`. */
const signingKey = (secret: string, date: string, region: string, service: string) =>
  hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request')

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

  /** The form, checked; the object to store. */
  const check = async (
    bucket: string,
    contentType: string | undefined,
    body: Buffer,
  ): Promise<{ key: string; file: Buffer; contentType: string }> => {
    if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) {
      throw new S3Refusal(
        412,
        'PreconditionFailed',
        'Bucket POST must be of the enclosure-type multipart/form-data',
      )
    }
    let form: FormData
    try {
      form = await new Response(body, { headers: { 'content-type': contentType } }).formData()
    } catch {
      throw new S3Refusal(
        400,
        'MalformedPOSTRequest',
        'The body of your POST request is not well-formed multipart/form-data.',
      )
    }
    // Field names are case-insensitive; the file comes last, and S3 ignores whatever follows it.
    const fields = new Map<string, string>()
    let file: Blob | undefined
    for (const [name, value] of form.entries()) {
      const lower = name.toLowerCase()
      if (lower === 'file') {
        file = typeof value === 'string' ? new Blob([value]) : value
        break
      }
      if (typeof value !== 'string') continue
      if (fields.has(lower)) {
        throw new S3Refusal(400, 'InvalidArgument', `POST form has the field ${name} twice`)
      }
      fields.set(lower, value)
    }
    if (file === undefined) {
      throw new S3Refusal(
        400,
        'InvalidArgument',
        'POST requires exactly one file upload per request.',
      )
    }
    const key = fields.get('key')
    if (key === undefined || key === '') {
      throw new S3Refusal(400, 'InvalidArgument', "Bucket POST must contain a field named 'key'.")
    }
    const policyText = fields.get('policy')
    const signature = fields.get('x-amz-signature')
    if (policyText === undefined || signature === undefined) {
      throw new S3Refusal(403, 'AccessDenied', 'Access Denied')
    }
    if (fields.get('x-amz-algorithm') !== 'AWS4-HMAC-SHA256') {
      throw new S3Refusal(400, 'InvalidArgument', 'Only AWS4-HMAC-SHA256 is supported.')
    }
    const [accessKeyId, date, region, service, terminator] = (
      fields.get('x-amz-credential') ?? ''
    ).split('/')
    if (accessKeyId !== LOCAL_UPLOAD_CREDENTIALS.accessKeyId) {
      throw new S3Refusal(
        403,
        'InvalidAccessKeyId',
        'The AWS Access Key Id you provided does not exist in our records.',
      )
    }
    if (
      date === undefined ||
      !/^\d{8}$/.test(date) ||
      region !== LOCAL_UPLOAD_REGION ||
      service !== 's3' ||
      terminator !== 'aws4_request'
    ) {
      throw new S3Refusal(
        400,
        'AuthorizationQueryParametersError',
        'Error parsing the X-Amz-Credential parameter; the credential scope must be <date>/local/s3/aws4_request.',
      )
    }
    const expected = createHmac(
      'sha256',
      signingKey(LOCAL_UPLOAD_CREDENTIALS.secretAccessKey, date, region, service),
    )
      .update(policyText)
      .digest()
    const given = Buffer.from(signature, 'hex')
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new S3Refusal(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      )
    }
    let policy: { expiration?: unknown; conditions?: unknown }
    try {
      policy = JSON.parse(Buffer.from(policyText, 'base64').toString('utf8'))
    } catch {
      throw new S3Refusal(400, 'InvalidPolicyDocument', 'Invalid Policy: Invalid JSON.')
    }
    const expiration = typeof policy.expiration === 'string' ? Date.parse(policy.expiration) : NaN
    if (!Number.isFinite(expiration) || !Array.isArray(policy.conditions)) {
      throw new S3Refusal(
        400,
        'InvalidPolicyDocument',
        'Invalid Policy: the policy needs an expiration and conditions.',
      )
    }
    if (expiration <= now()) {
      throw new S3Refusal(403, 'AccessDenied', 'Invalid according to Policy: Policy expired.')
    }
    const value = (field: string) => (field === 'bucket' ? bucket : fields.get(field))
    const conditions: Condition[] = []
    let range: [number, number] | undefined
    for (const condition of policy.conditions as unknown[]) {
      if (Array.isArray(condition) && condition[0] === 'content-length-range') {
        range = [Number(condition[1]), Number(condition[2])]
        continue
      }
      if (Array.isArray(condition) && (condition[0] === 'eq' || condition[0] === 'starts-with')) {
        const [op, ref, expectedValue] = condition as [string, string, string]
        const field = String(ref).replace(/^\$/, '').toLowerCase()
        conditions.push({
          field,
          check: (v) =>
            v !== undefined && (op === 'eq' ? v === expectedValue : v.startsWith(expectedValue)),
          text: JSON.stringify(condition),
        })
        continue
      }
      if (condition !== null && typeof condition === 'object' && !Array.isArray(condition)) {
        const [[name, expectedValue]] = Object.entries(condition) as [[string, string]]
        conditions.push({
          field: name.toLowerCase(),
          check: (v) => v === expectedValue,
          text: JSON.stringify(['eq', `$${name}`, expectedValue]),
        })
        continue
      }
      throw new S3Refusal(400, 'InvalidPolicyDocument', 'Invalid Policy: Invalid Simple-Condition.')
    }
    const named = new Set(conditions.map((c) => c.field))
    const extra = [...fields.keys()].filter(
      (f) => !UNSIGNED.has(f) && !f.startsWith('x-ignore-') && !named.has(f),
    )
    if (extra.length > 0) {
      throw new S3Refusal(
        403,
        'AccessDenied',
        `Invalid according to Policy: Extra input fields: ${extra.join(', ')}`,
      )
    }
    for (const condition of conditions) {
      if (!condition.check(value(condition.field))) {
        throw new S3Refusal(
          403,
          'AccessDenied',
          `Invalid according to Policy: Policy Condition failed: ${condition.text}`,
        )
      }
    }
    if (range && file.size > range[1]) {
      throw new S3Refusal(
        400,
        'EntityTooLarge',
        'Your proposed upload exceeds the maximum allowed size',
      )
    }
    if (range && file.size < range[0]) {
      throw new S3Refusal(
        400,
        'EntityTooSmall',
        'Your proposed upload is smaller than the minimum allowed size',
      )
    }
    return {
      key,
      file: Buffer.from(await file.arrayBuffer()),
      contentType: fields.get('content-type') ?? 'binary/octet-stream',
    }
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
    if (Number(req.headers['content-length'] ?? 0) > MAX_FORM_BYTES) {
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
    const body = await readBody(req, MAX_FORM_BYTES)
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
      const object = await check(bucket, req.headers['content-type'], body)
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
