import { request as httpRequest } from 'node:http'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { parse } from 'csv-parse/sync'
import { GRANT_BATCH_ROWS_QUEUE } from '../../functions/consumers'
import { BATCH_LIMITS } from '../../functions/domain/batch'
import { PREVIEW_PROBLEMS_PER_PAGE } from '../../functions/domain/batch-rows'
import { LOCAL_UPLOAD_PATH, LocalUploadStore } from '../../functions/stores/uploads.local'
import { UPLOAD_EXPIRES_SECONDS } from '../../functions/stores/uploads.store'
import { buildOpenApi } from '../../lib/openapi'
import { GATEWAY_MAX_BODY_BYTES } from '../../local/http-server'
import { createUploadReceiver } from '../../local/upload-receiver'
import {
  batchItemsOf,
  type Call,
  expectProblem,
  type Issuer,
  newIssuer,
  programState,
  startApi,
} from '../support/api'
import { type Person, signUpPerson, TEST_CONSOLE_URL } from '../support/identity'
import { dynamodb, runtimeWith, TestClock, wallClock } from '../support/runtime'
import { addMember, declaredAccess, manageCall, recordAccess, sleep } from './grants-support'
import { COMMIT_ROUTE, smallChunksCommitRoute } from './small-chunks-commit'

/**
 * Send to many from an upload: the presigned POST (CreateGrantBatchUpload) as the console uses it,
 * a real multipart/form-data POST (Node's fetch and FormData) to the local server's receiver, which
 * checks the policy as S3 does; then the dry run and the commit from `upload`, the policy's
 * refusals (S3's status and XML), the row limit, and the dry run's problems page by page.
 */
const CONSOLE_ORIGIN = new URL(TEST_CONSOLE_URL).origin
/** The answers' schemas in openapi.json: what the document promises, checked on real answers. */
const contract = (() => {
  const doc = buildOpenApi()
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  ajv.addSchema({ components: doc.components } as object, 'openapi')
  const schema = (name: string) => {
    const validate = ajv.compile({ $ref: `openapi#/components/schemas/${name}` })
    return (body: unknown) => {
      const ok = validate(body) as boolean
      if (!ok) console.error(name, JSON.stringify(validate.errors))
      return ok
    }
  }
  return { upload: schema('GrantBatchUpload'), preview: schema('GrantBatchPreview') }
})()
/** S3's clock, which the tests move past a policy's expiration. */
const s3Clock = new TestClock(() => Date.now())

let api: Awaited<ReturnType<typeof startApi>>
let admin: Person
let viewer: Person
const uploads = new LocalUploadStore({ endpoint: () => api.baseUrl })

/** This file's commits pack their rows in chunks of CHUNK_ROWS (small-chunks-commit.ts). */
const CHUNK_ROWS = 10

beforeAll(async () => {
  const routesRuntime = { ...runtimeWith({ CONSOLE_URL: TEST_CONSOLE_URL }), uploads }
  const commitRoute = smallChunksCommitRoute(routesRuntime, CHUNK_ROWS, () => api.pipeline)
  api = await startApi({
    pipeline: true,
    runtime: routesRuntime,
    wrap: (routeKey, handler) => (routeKey === COMMIT_ROUTE ? commitRoute : handler),
    options: {
      // The functions' time a request, 12 times Lambda's 10 s: the 50,000-row dry run takes about
      // 2 s of its 7.5 s deadline idle, and got 503 on a loaded machine; its speed is no outcome
      // here (no test of this file is about a deadline).
      functionTimeoutMs: 120_000,
      uploads: createUploadReceiver({
        store: uploads,
        allowedOrigins: () => [CONSOLE_ORIGIN],
        now: s3Clock.now,
      }),
    },
  })
  ;[admin, viewer] = (await Promise.all([signUpPerson(), signUpPerson()])) as [Person, Person]
})
afterAll(async () => {
  await api.close()
})
afterEach(() => s3Clock.reset())

const issuerWith = async (options: { pool?: number } = {}) => {
  const issuer = await newIssuer(options)
  await Promise.all([
    addMember(issuer.issuerId, admin, 'admin'),
    addMember(issuer.issuerId, viewer, 'viewer'),
  ])
  return issuer
}
const programPath = (issuer: Issuer, programId = issuer.programs.TEST) =>
  `/manage/issuers/${issuer.issuerId}/programs/${programId}`

type Upload = {
  object: string
  uploadId: string
  url: string
  fields: Record<string, string>
  expiresAt: string
  maxBytes: number
}

const newUpload = async (person: Person, issuer: Issuer, programId = issuer.programs.TEST) => {
  const call = await manageCall(
    api.baseUrl,
    person,
    'POST',
    `${programPath(issuer, programId)}/grant-batch-uploads`,
  )
  return { call, upload: call.body as unknown as Upload }
}

/** The browser's form: the fields first, the file last (S3 ignores anything after it). */
const postFile = async (
  upload: Upload,
  content: string | Uint8Array,
  options: {
    fields?: Record<string, string>
    drop?: string[]
    extra?: Record<string, string>
    origin?: string
  } = {},
) => {
  const form = new FormData()
  const fields = { ...upload.fields, ...options.fields }
  for (const [name, value] of Object.entries(fields)) {
    if (!options.drop?.includes(name)) form.append(name, value)
  }
  for (const [name, value] of Object.entries(options.extra ?? {})) form.append(name, value)
  form.append('file', new Blob([content], { type: 'text/csv' }), 'rows.csv')
  const response = await fetch(upload.url, {
    method: 'POST',
    body: form,
    headers: options.origin ? { origin: options.origin } : {},
  })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

const uploaded = async (issuer: Issuer, csv: string) => {
  const { call, upload } = await newUpload(admin, issuer)
  expect(call.status).toBe(201)
  const sent = await postFile(upload, csv)
  expect({ status: sent.status, text: sent.text }).toEqual({ status: 204, text: '' })
  return upload
}

const batch = (person: Person, issuer: Issuer, body: unknown, key?: string) =>
  manageCall(api.baseUrl, person, 'POST', `${programPath(issuer)}/grant-batches`, {
    body,
    headers: key === undefined ? {} : { 'idempotency-key': key },
  })

const csvOf = (rows: readonly (readonly (string | number)[])[]) =>
  `${['email,amount,name,reason', ...rows.map((r) => r.join(','))].join('\r\n')}\r\n`

/** S3's refusal: the status and an XML <Error> with its code, as the SDKs and browsers read it. */
const expectS3Error = (
  answer: { status: number; headers: Headers; text: string },
  status: number,
  code: string,
  message?: RegExp,
) => {
  expect({ status: answer.status, type: answer.headers.get('content-type') }).toEqual({
    status,
    type: 'application/xml',
  })
  expect(answer.text).toContain(`<Error><Code>${code}</Code>`)
  if (message) expect(answer.text).toMatch(message)
}

const finished = async (issuer: Issuer, batchId: string) => {
  const started = Date.now()
  const pipeline = api.pipeline
  if (!pipeline) throw new Error('This file starts the API with its pipeline')
  for (;;) {
    await pipeline.drain(120_000)
    const call = await manageCall(
      api.baseUrl,
      admin,
      'GET',
      `${programPath(issuer)}/grant-batches/${batchId}`,
    )
    if (call.status === 200 && (call.body.status === 'done' || call.body.status === 'canceled'))
      return call
    if (Date.now() - started > 60_000) throw new Error(`batch ${batchId}: ${call.text}`)
    if ((pipeline.queues[GRANT_BATCH_ROWS_QUEUE.id]?.counts().inFlight ?? 0) > 0) {
      wallClock.advance(GRANT_BATCH_ROWS_QUEUE.visibilityTimeoutSeconds * 1000 + 1)
    }
    await sleep(100)
  }
}

describe('CreateGrantBatchUpload', () => {
  it('answers a presigned POST for one key of this issuer and program: text/csv, 1 byte to 32 MiB, 15 minutes', async () => {
    const issuer = await issuerWith()
    const before = Date.now()
    const { call, upload } = await newUpload(admin, issuer)
    expect(call.status).toBe(201)
    expect(call.headers.get('cache-control')).toBe('no-store')
    expect(upload).toEqual({
      object: 'grant_batch_upload',
      uploadId: expect.stringMatching(/^upl_[0-9a-z]{26}$/),
      url: `${api.baseUrl}${LOCAL_UPLOAD_PATH}/local-uploads`,
      fields: expect.objectContaining({
        key: `uploads/${issuer.issuerId}/${issuer.programs.TEST}/${upload.uploadId}.csv`,
        'Content-Type': 'text/csv',
        'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      }),
      expiresAt: expect.any(String),
      maxBytes: BATCH_LIMITS.maxUploadBytes,
    })
    // The policy the signature covers says exactly that (what S3 enforces).
    const policy = JSON.parse(Buffer.from(upload.fields.Policy as string, 'base64').toString())
    expect(policy.conditions).toEqual(
      expect.arrayContaining([
        ['content-length-range', 1, BATCH_LIMITS.maxUploadBytes],
        { 'Content-Type': 'text/csv' },
        { key: upload.fields.key },
      ]),
    )
    expect(policy.expiration).toBe(upload.expiresAt)
    expect(contract.upload(call.body)).toBe(true)
    const expires = Date.parse(upload.expiresAt)
    expect(expires).toBeGreaterThanOrEqual(
      Math.floor(before / 1000) * 1000 + UPLOAD_EXPIRES_SECONDS * 1000,
    )
    expect(expires).toBeLessThanOrEqual(Date.now() + UPLOAD_EXPIRES_SECONDS * 1000)
    // Random ids: two uploads never share a key.
    const second = await newUpload(admin, issuer)
    expect(second.upload.uploadId).not.toBe(upload.uploadId)
  })

  it('calls only what routes.ts declares for it', async () => {
    const issuer = await issuerWith()
    const other = await newIssuer()
    const access = recordAccess(dynamodb)
    try {
      expect((await newUpload(admin, issuer)).call.status).toBe(201)
      expect((await newUpload(admin, issuer, other.programs.TEST)).call.status).toBe(404)
      expect((await newUpload(viewer, issuer)).call.status).toBe(403)
    } finally {
      access.stop()
    }
    expect(access.seen.size).toBeGreaterThan(0)
    const allowed = declaredAccess('CreateGrantBatchUpload')
    for (const line of access.seen) expect(allowed).toContain(line)
  })

  it('is for admins of the issuer, on its own programs only', async () => {
    const issuer = await issuerWith()
    const other = await newIssuer()
    expectProblem((await newUpload(viewer, issuer)).call, 403, 'forbidden')
    expectProblem(
      (await newUpload(admin, issuer, other.programs.TEST)).call,
      404,
      'program_not_found',
    )
    expectProblem((await newUpload(admin, other)).call, 404, 'issuer_not_found')
  })
})

describe('the upload POST, checked as S3 checks it', () => {
  it('takes the form (fields first, file last) and answers 204 with CORS for the console origin only', async () => {
    const issuer = await issuerWith()
    const { upload } = await newUpload(admin, issuer)
    const sent = await postFile(upload, csvOf([['ann@example.com', 1, '', 'Thanks']]), {
      origin: CONSOLE_ORIGIN,
    })
    expect(sent.status).toBe(204)
    expect(sent.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/)
    expect(sent.headers.get('access-control-allow-origin')).toBe(CONSOLE_ORIGIN)
    // Another site's page: the POST is not preflighted and the local credentials are public, so
    // the local receiver refuses it outright (local/local-guard.ts), where S3 checks only the policy.
    const { upload: second } = await newUpload(admin, issuer)
    const elsewhere = await postFile(second, 'email,amount\r\nbob@example.com,1\r\n', {
      origin: 'https://evil.example',
    })
    expect(elsewhere.status).toBe(403)
    expect(elsewhere.headers.get('content-type')).toBe('application/problem+json')
    expect(JSON.parse(elsewhere.text)).toMatchObject({ code: 'local-origin-not-allowed' })
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull()
    const preflight = (origin: string) =>
      fetch(upload.url, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      })
    const allowed = await preflight(CONSOLE_ORIGIN)
    expect(allowed.status).toBe(200)
    expect(allowed.headers.get('access-control-allow-methods')).toBe('POST')
    const refused = await preflight('https://evil.example')
    expect(refused.status).toBe(403)
    expect(refused.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('refuses what the policy does not allow, like S3 (403 and XML; 400 for the size), and stores nothing', async () => {
    const issuer = await issuerWith()
    const csv = csvOf([['ann@example.com', 1, '', 'Thanks']])
    const refusals: [string, (u: Upload) => ReturnType<typeof postFile>, number, string, RegExp][] =
      [
        [
          'another key',
          (u) => postFile(u, csv, { fields: { key: `${u.fields.key}-x` } }),
          403,
          'AccessDenied',
          /Policy Condition failed: \["eq","\$key"/,
        ],
        [
          'another Content-Type',
          (u) => postFile(u, csv, { fields: { 'Content-Type': 'text/html' } }),
          403,
          'AccessDenied',
          /Policy Condition failed: \["eq","\$Content-Type","text\/csv"\]/,
        ],
        [
          'no Content-Type',
          (u) => postFile(u, csv, { drop: ['Content-Type'] }),
          403,
          'AccessDenied',
          /Policy Condition failed/,
        ],
        [
          'a field the policy does not name',
          (u) => postFile(u, csv, { extra: { acl: 'public-read' } }),
          403,
          'AccessDenied',
          /Extra input fields: acl/,
        ],
        [
          'a signature of something else',
          (u) => postFile(u, csv, { fields: { 'X-Amz-Signature': 'ab'.repeat(32) } }),
          403,
          'SignatureDoesNotMatch',
          /signature we calculated does not match/,
        ],
        [
          'a policy rewritten for 1 GB',
          (u) => {
            const policy = JSON.parse(Buffer.from(u.fields.Policy as string, 'base64').toString())
            policy.conditions[0] = ['content-length-range', 1, 1024 ** 3]
            return postFile(u, csv, {
              fields: { Policy: Buffer.from(JSON.stringify(policy)).toString('base64') },
            })
          },
          403,
          'SignatureDoesNotMatch',
          /does not match/,
        ],
        [
          'another access key',
          (u) =>
            postFile(u, csv, {
              fields: {
                'X-Amz-Credential': (u.fields['X-Amz-Credential'] as string).replace(
                  /^local\//,
                  'AKIAEXAMPLE/',
                ),
              },
            }),
          403,
          'InvalidAccessKeyId',
          /does not exist/,
        ],
        ['no policy', (u) => postFile(u, csv, { drop: ['Policy'] }), 403, 'AccessDenied', /Denied/],
        [
          'an empty file',
          (u) => postFile(u, ''),
          400,
          'EntityTooSmall',
          /smaller than the minimum/,
        ],
        [
          'a file over 32 MiB',
          (u) => postFile(u, new Uint8Array(BATCH_LIMITS.maxUploadBytes + 1).fill(65)),
          400,
          'EntityTooLarge',
          /exceeds the maximum allowed size/,
        ],
      ]
    for (const [what, send, status, code, message] of refusals) {
      const { upload } = await newUpload(admin, issuer)
      const answer = await send(upload)
      expect({ what, status: answer.status }).toEqual({ what, status })
      expectS3Error(answer, status, code, message)
      // Nothing stored: the upload cannot be used.
      expectProblem(
        await batch(admin, issuer, { upload: upload.uploadId, dryRun: true }),
        404,
        'upload_not_found',
      )
    }
  })

  it('answers Expect: 100-continue (curl sends it for large files) up to S3 sizes, past the gateway 10 MB', async () => {
    const issuer = await issuerWith()
    const { upload } = await newUpload(admin, issuer)
    const form = new FormData()
    for (const [name, value] of Object.entries(upload.fields)) form.append(name, value)
    // 12 MB: more than API Gateway takes, well within the policy's 32 MiB.
    form.append('file', new Blob([new Uint8Array(12 * 1024 * 1024).fill(97)]), 'big.csv')
    const encoded = new Request(upload.url, { method: 'POST', body: form })
    const body = Buffer.from(await encoded.arrayBuffer())
    expect(body.length).toBeGreaterThan(GATEWAY_MAX_BODY_BYTES)
    const { continued, status } = await new Promise<{ continued: boolean; status: number }>(
      (resolve, reject) => {
        let continued = false
        const req = httpRequest(upload.url, {
          method: 'POST',
          headers: {
            'content-type': encoded.headers.get('content-type') as string,
            'content-length': body.length,
            expect: '100-continue',
          },
        })
        req.on('continue', () => {
          continued = true
          req.end(body)
        })
        req.on('response', (res) => {
          res.resume()
          res.on('end', () => resolve({ continued, status: res.statusCode ?? 0 }))
        })
        req.on('error', reject)
      },
    )
    expect({ continued, status }).toEqual({ continued: true, status: 204 })
  })

  it('refuses a policy past its expiration (S3 clock), however valid otherwise', async () => {
    const issuer = await issuerWith()
    const { upload } = await newUpload(admin, issuer)
    s3Clock.advance(UPLOAD_EXPIRES_SECONDS * 1000 + 1000)
    const answer = await postFile(upload, csvOf([['ann@example.com', 1, '', 'Thanks']]))
    expectS3Error(answer, 403, 'AccessDenied', /Policy expired/)
    s3Clock.reset()
    expect((await postFile(upload, csvOf([['ann@example.com', 1, '', 'Thanks']]))).status).toBe(204)
  })

  it('refuses a body that is not multipart/form-data', async () => {
    const issuer = await issuerWith()
    const { upload } = await newUpload(admin, issuer)
    const answer = await fetch(upload.url, {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: 'email,amount\r\n',
    })
    expectS3Error(
      { status: answer.status, headers: answer.headers, text: await answer.text() },
      412,
      'PreconditionFailed',
    )
  })
})

describe('a batch from an upload', () => {
  it('dry-runs, commits and grants every row once; a retried commit of the same upload replays', async () => {
    const issuer = await issuerWith()
    // Three chunks, the last one partial.
    const rows = Array.from({ length: 25 }, (_, i) => [`u${i}@example.com`, 2, `User ${i}`, ''])
    const csv = csvOf(rows)
    // Interoperability: a real CSV reader reads the file as the service will.
    expect(parse(csv, { columns: true })).toHaveLength(25)
    const upload = await uploaded(issuer, csv)

    const dry = await batch(admin, issuer, {
      upload: upload.uploadId,
      reason: 'Launch',
      dryRun: true,
    })
    expect(dry.status).toBe(200)
    expect(dry.body).toMatchObject({
      object: 'grant_batch_preview',
      counts: { total: 25, valid: 25, invalid: 0, duplicates: 0 },
      amount: 50,
      problems: [],
      problemsCursor: null,
    })
    expect(await batchItemsOf(issuer)).toHaveLength(0)

    const body = { upload: upload.uploadId, reason: 'Launch', dryRun: false }
    const committed = await batch(admin, issuer, body, 'upload-commit-1')
    expect(committed.status).toBe(202)
    const batchId = committed.body.id as string
    expect((await batchItemsOf(issuer)).map((item) => [item.batchId, item.chunks])).toEqual([
      [batchId, 3],
    ])
    const replay = await batch(admin, issuer, body, 'upload-commit-1')
    expect(replay.status).toBe(200)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(replay.body.id).toBe(batchId)
    // The same rows sent as `csv` are the same request: the hash is over the CSV's content.
    const asCsv = await batch(
      admin,
      issuer,
      { csv, reason: 'Launch', dryRun: false },
      'upload-commit-1',
    )
    expect(asCsv.status).toBe(200)
    // The same key with another upload (other rows) is another request.
    const other = await uploaded(issuer, csvOf([['zed@example.com', 1, '', '']]))
    expectProblem(
      await batch(admin, issuer, { ...body, upload: other.uploadId }, 'upload-commit-1'),
      422,
      'idempotency_key_reused',
    )

    const done = await finished(issuer, batchId)
    expect(done.body).toMatchObject({
      status: 'done',
      counts: { total: 25, granted: 25, failed: 0, canceled: 0, pending: 0 },
    })
    const state = await programState(issuer.programs.TEST)
    expect(state.grants).toHaveLength(25)
    expect(state.issued).toBe(50)
    expect(new Set(state.grants.map((g) => g.recipient?.email)).size).toBe(25)
  })

  it('takes an upload of this issuer and program only; unknown, malformed or elsewhere is 404 upload_not_found', async () => {
    const issuer = await issuerWith()
    const upload = await uploaded(issuer, csvOf([['ann@example.com', 1, '', 'Thanks']]))
    const live = await newUpload(admin, issuer, issuer.programs.LIVE)
    expect((await postFile(live.upload, csvOf([['ann@example.com', 1, '', 'x']]))).status).toBe(204)
    for (const uploadId of [
      'upl_00000000000000000000000000',
      'not-an-id',
      '../../etc/passwd',
      live.upload.uploadId, // the LIVE program's, sent to the TEST program
    ]) {
      const call = await batch(admin, issuer, { upload: uploadId, dryRun: true })
      expectProblem(call, 404, 'upload_not_found')
    }
    // Another issuer's admin, with the id in hand, reads nothing.
    const other = await issuerWith()
    expectProblem(
      await manageCall(api.baseUrl, admin, 'POST', `${programPath(other)}/grant-batches`, {
        body: { upload: upload.uploadId, dryRun: true },
      }),
      404,
      'upload_not_found',
    )
    // One source, never both or neither.
    const both = await batch(admin, issuer, {
      csv: 'email,amount\r\n',
      upload: upload.uploadId,
      dryRun: true,
    })
    expectProblem(both, 400, 'validation_failed')
    expect(both.body.errors).toEqual([
      { field: 'upload', message: expect.stringMatching(/one of the two/) },
    ])
    const neither = await batch(admin, issuer, { dryRun: true })
    expectProblem(neither, 400, 'validation_failed')
    expect(neither.body.errors).toEqual([
      { field: 'csv', message: expect.stringMatching(/one of the two/) },
    ])
    // A viewer may not use it either.
    expectProblem(
      await batch(viewer, issuer, { upload: upload.uploadId, dryRun: true }),
      403,
      'forbidden',
    )
  })

  it('refuses 50,001 rows with a clear error and writes nothing', async () => {
    const issuer = await issuerWith()
    const rows = Array.from({ length: BATCH_LIMITS.maxRows + 1 }, (_, i) => [
      `r${i}@example.com`,
      1,
      '',
      'Bonus',
    ])
    const upload = await uploaded(issuer, csvOf(rows))
    for (const dryRun of [true, false]) {
      const call = await batch(
        admin,
        issuer,
        { upload: upload.uploadId, dryRun },
        dryRun ? undefined : 'too-many',
      )
      expectProblem(call, 400, 'validation_failed')
      expect(call.body.errors).toEqual([
        { field: 'upload', message: `csv has 50001 rows; a batch takes at most 50000` },
      ])
    }
    expect(await batchItemsOf(issuer)).toHaveLength(0)
    expect((await programState(issuer.programs.TEST)).grants).toHaveLength(0)
    // 50,000 (the limit), over 1 MB: taken from an upload, checked in one dry run.
    const full = await uploaded(issuer, csvOf(rows.slice(0, BATCH_LIMITS.maxRows)))
    const started = performance.now()
    const dry = await batch(admin, issuer, { upload: full.uploadId, dryRun: true })
    console.log(
      `dry run of ${BATCH_LIMITS.maxRows} uploaded rows: ${Math.round(performance.now() - started)} ms`,
    )
    expect(dry.status).toBe(200)
    expect(dry.body.counts).toEqual({ total: 50_000, valid: 50_000, invalid: 0, duplicates: 0 })
    expect(contract.preview(dry.body)).toBe(true)
  })

  it('dry run: lists every bad row and duplicate, a page at a time (problemsCursor -> problemsFrom)', async () => {
    const issuer = await issuerWith()
    // 5,000 rows: every third is invalid, every fifth repeats the row before it.
    const rows: (string | number)[][] = []
    for (let i = 0; i < 5_000; i++) {
      if (i % 3 === 0) rows.push([`bad-${i}`, 1, '', 'x'])
      else if (i % 5 === 0 && rows.length > 0)
        rows.push([...(rows[rows.length - 1] as (string | number)[])])
      else rows.push([`p${i}@example.com`, 1, '', 'x'])
    }
    const upload = await uploaded(issuer, csvOf(rows))
    const pages: Call[] = []
    let from: number | null = 1
    while (from !== null) {
      const call = await batch(admin, issuer, {
        upload: upload.uploadId,
        dryRun: true,
        problemsFrom: from,
      })
      expect(call.status).toBe(200)
      pages.push(call)
      from = call.body.problemsCursor as number | null
    }
    expect(pages.every((p) => contract.preview(p.body))).toBe(true)
    const problems = pages.flatMap((p) => p.body.problems as { row: number; code: string }[])
    const counts = pages[0]?.body.counts as { invalid: number; duplicates: number }
    expect(pages.length).toBe(
      Math.ceil((counts.invalid + counts.duplicates) / PREVIEW_PROBLEMS_PER_PAGE),
    )
    expect(pages.length).toBeGreaterThan(1)
    expect(
      pages
        .slice(0, -1)
        .every((p) => (p.body.problems as unknown[]).length === PREVIEW_PROBLEMS_PER_PAGE),
    ).toBe(true)
    // Every problem once, in row order, and the counts of every page are the whole CSV's.
    expect(problems).toHaveLength(counts.invalid + counts.duplicates)
    expect(problems.map((p) => p.row)).toEqual(
      [...new Set(problems.map((p) => p.row))].sort((a, b) => a - b),
    )
    expect(problems.filter((p) => p.code === 'duplicate_row')).toHaveLength(counts.duplicates)
    expect(new Set(pages.map((p) => JSON.stringify(p.body.counts))).size).toBe(1)
    const bad = await batch(admin, issuer, {
      upload: upload.uploadId,
      dryRun: true,
      problemsFrom: 0,
    })
    expectProblem(bad, 400, 'validation_failed')
  })
})
