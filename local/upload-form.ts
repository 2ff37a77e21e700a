/**
 * The form of S3's browser-based upload (a presigned POST), checked as S3 checks it: the signature
 * of the policy with the credentials the local store signs with, the policy's expiration, every
 * condition, no field the policy does not name (local/upload-receiver.ts answers with it).
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { LOCAL_UPLOAD_CREDENTIALS, LOCAL_UPLOAD_REGION } from '../functions/stores/uploads.local'

/** Fields S3 leaves out of the "every field in the policy" rule. */
const UNSIGNED = new Set(['policy', 'x-amz-signature', 'file'])

export class S3Refusal {
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

/** The form's fields (names in lower case) and its file: S3 reads up to the file. */
const readForm = async (contentType: string | undefined, body: Buffer) => {
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
  return { fields, file }
}

/** The policy's text, once its SigV4 signature is the local credentials'. */
const signedPolicy = (fields: Map<string, string>) => {
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
  return policyText
}

/** The policy, parsed and not expired. */
const readPolicy = (policyText: string, now: () => number) => {
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
  return policy
}

/** The policy's conditions on fields, and its content-length-range. */
const parseConditions = (list: unknown[]) => {
  const conditions: Condition[] = []
  let range: [number, number] | undefined
  for (const condition of list) {
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
  return { conditions, range }
}

/** No field the policy does not name, every condition met, the file's size within the range. */
const checkConditions = (
  bucket: string,
  fields: Map<string, string>,
  file: Blob,
  conditions: Condition[],
  range: [number, number] | undefined,
) => {
  const value = (field: string) => (field === 'bucket' ? bucket : fields.get(field))
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
}

/** The form, checked; the object to store. */
export const checkUploadForm = async (
  bucket: string,
  contentType: string | undefined,
  body: Buffer,
  now: () => number,
): Promise<{ key: string; file: Buffer; contentType: string }> => {
  const { fields, file } = await readForm(contentType, body)
  const key = fields.get('key')
  if (key === undefined || key === '') {
    throw new S3Refusal(400, 'InvalidArgument', "Bucket POST must contain a field named 'key'.")
  }
  const policyText = signedPolicy(fields)
  const policy = readPolicy(policyText, now)
  const { conditions, range } = parseConditions(policy.conditions as unknown[])
  checkConditions(bucket, fields, file, conditions, range)
  return {
    key,
    file: Buffer.from(await file.arrayBuffer()),
    contentType: fields.get('content-type') ?? 'binary/octet-stream',
  }
}
