import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { consumerById, GRANT_BATCH_ROWS_QUEUE } from '../../functions/consumers'
import { AccessCache } from '../../functions/core/access-cache'
import { makeBatchRowsWorker } from '../../functions/core/grant-batch-worker'
import { makeGrantTokens } from '../../functions/core/grant-tokens'
import {
  BATCH_LIMITS,
  type BatchRecord,
  batchIdFor,
  batchStatus,
  packChunks,
  rowIdempotencyKey,
} from '../../functions/domain/batch'
import type { GrantRecord } from '../../functions/domain/grant'
import { makeCreateGrantBatchHandler } from '../../functions/http/routes/manage/grant-batch-create.route'
import { DynamoDbBatchStore } from '../../functions/stores/batches.dynamodb'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import { createGrantBatchDeps } from '../../functions/wiring/batches.deps'
import { makeBatchWorkerHandler } from '../../functions/wiring/grant-batch-worker.consumer'
import { sqsEventOf } from '../../local/queue'
import {
  batchItemsOf,
  type Call,
  expectNothingWritten,
  expectProblem,
  type Issuer,
  newIssuer,
  programState,
  setProgramStatus,
  startApi,
} from '../support/api'
import { recordingQueue } from '../support/fake-batch-store'
import { injectFaults } from '../support/fault-injector'
import { type Person, signUpPerson, TEST_CONSOLE_URL } from '../support/identity'
import {
  config,
  documentClient,
  dynamodb,
  runtime,
  runtimeWith,
  TestClock,
  wallClock,
} from '../support/runtime'
import {
  addMember,
  auditLog,
  declaredAccess,
  manageCall,
  recordAccess,
  sleep,
} from './grants-support'
import { COMMIT_ROUTE, smallChunksCommitRoute } from './small-chunks-commit'

/**
 * Send to many, through the local server with real access tokens: the dry run (every row checked
 * with the grant rules, duplicates, the pool), the commit (stored, then granted in the background
 * by the worker from the GrantBatchRows queue, the local one here as under npm start), per-row
 * results, and exactly once: a
 * batch of 11 chunks committed twice, and twice at the same moment, while DynamoDB calls fail (the
 * 5,000-row volume is the bench's: `BENCH_ONLY=batch-local`).
 */
let api: Awaited<ReturnType<typeof startApi>>
let admin: Person
let viewer: Person
let adminOfB: Person

/** The local mail sink the worker's finish notices go to, as under npm start. */
const sinkFile = join(mkdtempSync(join(tmpdir(), 'batches-')), 'mail.jsonl')

/** The issuers whose batches the commit route packs in chunks of SMALL_CHUNK_ROWS. */
const SMALL_CHUNK_ROWS = 10
const smallChunkIssuers = new Set<string>()

beforeAll(async () => {
  // The queues and the worker as npm start runs them (no stream: other files' grants are theirs).
  const routesRuntime = runtimeWith({ MAIL_SINK_FILE: sinkFile, CONSOLE_URL: TEST_CONSOLE_URL })
  const smallChunks = smallChunksCommitRoute(routesRuntime, SMALL_CHUNK_ROWS, () => api.pipeline)
  api = await startApi({
    pipeline: true,
    runtime: routesRuntime,
    wrap: (routeKey, handler) =>
      routeKey !== COMMIT_ROUTE
        ? handler
        : (event, context) =>
            (smallChunkIssuers.has(
              (event as { pathParameters?: { issuerId?: string } }).pathParameters?.issuerId ?? '',
            )
              ? smallChunks
              : handler)(event as never, context as never),
  })
  ;[admin, viewer, adminOfB] = (await Promise.all([
    signUpPerson(),
    signUpPerson(),
    signUpPerson(),
  ])) as [Person, Person, Person]
})
afterAll(async () => {
  await api.close()
})

const issuerWith = async (options: { pool?: number } = {}) => {
  const issuer = await newIssuer(options)
  await Promise.all([
    addMember(issuer.issuerId, admin, 'admin'),
    addMember(issuer.issuerId, viewer, 'viewer'),
  ])
  return issuer
}
const batchesPath = (issuerId: string, programId: string) =>
  `/manage/issuers/${issuerId}/programs/${programId}/grant-batches`
const post = (
  person: Person,
  issuer: Issuer,
  body: unknown,
  key?: string,
  programId = issuer.programs.TEST,
) =>
  manageCall(api.baseUrl, person, 'POST', batchesPath(issuer.issuerId, programId), {
    body,
    headers: key === undefined ? {} : { 'idempotency-key': key },
  })
const read = (
  person: Person,
  issuer: Issuer,
  batchId: string,
  query = '',
  programId = issuer.programs.TEST,
) =>
  manageCall(
    api.baseUrl,
    person,
    'GET',
    `${batchesPath(issuer.issuerId, programId)}/${batchId}${query}`,
  )

const csvOf = (
  rows: readonly (readonly (string | number)[])[],
  header = 'email,amount,name,reason',
) => `${[header, ...rows.map((r) => r.join(','))].join('\r\n')}\r\n`

/**
 * Until the worker has finished the batch. A chunk handed back (out of time, DynamoDB away) waits
 * out its visibility timeout on the queue's clock: when nothing else is left to do, the clock is
 * moved past it, as SQS's would have passed. A stalled batch is committed again (`recommit`).
 */
const finished = async (
  person: Person,
  issuer: Issuer,
  batchId: string,
  recommit?: () => Promise<unknown>,
) => {
  const started = Date.now()
  const pipeline = api.pipeline
  if (!pipeline) throw new Error('This file starts the API with its pipeline')
  for (;;) {
    await pipeline.drain(120_000)
    const call = await read(person, issuer, batchId)
    if (call.status === 200 && (call.body.status === 'done' || call.body.status === 'canceled'))
      return call
    if (Date.now() - started > 480_000)
      throw new Error(`batch ${batchId} not done: ${call.text.slice(0, 300)}`)
    const queue = pipeline.queues[GRANT_BATCH_ROWS_QUEUE.id]
    if ((queue?.counts().inFlight ?? 0) > 0) {
      wallClock.advance(GRANT_BATCH_ROWS_QUEUE.visibilityTimeoutSeconds * 1000 + 1)
    } else if (call.status === 200 && call.body.status === 'stalled' && recommit) {
      await recommit()
    }
    await sleep(100)
  }
}

/** All rows of a batch, following the cursor. */
const allRows = async (person: Person, issuer: Issuer, batchId: string, query = '') => {
  const rows: Record<string, unknown>[] = []
  let cursor: string | null = null
  do {
    const call: Call = await read(
      person,
      issuer,
      batchId,
      `?limit=500${query}${cursor ? `&cursor=${cursor}` : ''}`,
    )
    expect(call.status).toBe(200)
    rows.push(...(call.body.rows as Record<string, unknown>[]))
    cursor = call.body.nextCursor as string | null
  } while (cursor !== null)
  return rows
}

/** Everything a refused or dry call must leave as it was: grants, counters, audit, batches. */
const expectNoChange = async (issuer: Issuer, act: () => Promise<void>) => {
  const [audit, batches] = [
    (await auditLog(issuer.issuerId)).length,
    (await batchItemsOf(issuer)).length,
  ]
  await expectNothingWritten(issuer.programs.TEST, act)
  expect((await auditLog(issuer.issuerId)).length).toBe(audit)
  expect((await batchItemsOf(issuer)).length).toBe(batches)
}

describe('dry run', () => {
  it('checks every row with the grant rules, names each problem with its row, flags duplicates, checks the pool, writes nothing', async () => {
    const issuer = await issuerWith({ pool: 12 })
    const csv = [
      'Email,AMOUNT,name,reason', // 1: the header, any case
      'ann@example.com,5,Ann,', // 2: valid, the batch's reason
      'not-an-email,1,,', // 3
      'bob@example.com,0,,', // 4
      'carol@example.com,1.5,,', // 5
      'dave@example.com,abc,,', // 6
      '', // 7: blank, skipped
      ' ANN@Example.com ,5,Ann S.,', // 8: duplicate of 2 (same address, amount and reason)
      'ann@example.com,5,,Other reason', // 9: valid, another reason
      'erin@example.com,2,"Erin, ""E""",', // 10: valid, a name with a comma and quotes
      'frank@example.com,3,,""', // 11: valid
      ',,,', // 12: blank, skipped
      'gina@example.com,1,x,y,extra', // 13: one value too many
      `hank@example.com,1,${'n'.repeat(201)},`, // 14: name too long
    ].join('\n')
    let preview: Call | undefined
    await expectNoChange(issuer, async () => {
      preview = await post(admin, issuer, { csv, reason: 'Spring awards', dryRun: true })
    })
    const call = preview as Call
    expect(call.status).toBe(200)
    expect(call.body).toMatchObject({
      object: 'grant_batch_preview',
      dryRun: true,
      programId: issuer.programs.TEST,
      mode: 'TEST',
      programStatus: 'active',
      counts: { total: 11, valid: 4, invalid: 6, duplicates: 1 },
      amount: 15,
      pool: { limited: true, remaining: 12, enough: false, shortBy: 3 },
    })
    const problems = call.body.problems as {
      row: number
      code: string
      errors?: { field: string; message: string }[]
      duplicateOf?: number
    }[]
    expect(
      problems.map((p) => [p.row, p.code, p.errors?.map((e) => e.field) ?? p.duplicateOf]),
    ).toEqual([
      [3, 'validation_failed', ['email']],
      [4, 'validation_failed', ['amount']],
      [5, 'validation_failed', ['amount']],
      [6, 'validation_failed', ['amount']],
      [8, 'duplicate_row', 2],
      [13, 'validation_failed', ['csv']],
      [14, 'validation_failed', ['name']],
    ])
    const message = (row: number) => problems.find((p) => p.row === row)?.errors?.[0]?.message
    expect(message(3)).toBe('email must be a valid e-mail address')
    expect(message(4)).toBe('amount must be greater than zero')
    expect(message(5)).toBe('amount must be a whole number')
    expect(message(6)).toBe('amount must be a whole number from 1 to 1000000')
    expect(message(14)).toBe('name must be at most 200 characters')

    // Within the pool: enough.
    const fits = await post(admin, issuer, {
      csv: csvOf([['ann@example.com', 12, '', '']]),
      reason: 'R',
      dryRun: true,
    })
    expect(fits.body.pool).toEqual({ limited: true, remaining: 12, enough: true, shortBy: 0 })
  })

  it('refuses rows without a reason when the batch has none, naming the rule', async () => {
    const issuer = await issuerWith()
    const call = await post(admin, issuer, {
      csv: csvOf([
        ['ann@example.com', 1, '', ''],
        ['bob@example.com', 1, '', 'Own'],
      ]),
      dryRun: true,
    })
    expect(call.body.counts).toEqual({ total: 2, valid: 1, invalid: 1, duplicates: 0 })
    expect(call.body.problems).toEqual([
      {
        row: 2,
        code: 'validation_failed',
        message: "reason is required: in the row's reason column, or the batch's reason",
        errors: [
          {
            field: 'reason',
            message: "reason is required: in the row's reason column, or the batch's reason",
          },
        ],
      },
    ])
    expect(call.body.pool).toEqual({ limited: false, remaining: null, enough: true, shortBy: 0 })
  })

  it('refuses a CSV it cannot use at all with 400 on the field csv, and a malformed body, writing nothing', async () => {
    const issuer = await issuerWith()
    // 50,001 short rows fit the 1 MB a JSON body's CSV may have; the row limit refuses them.
    const many = csvOf(
      Array.from({ length: BATCH_LIMITS.maxRows + 1 }, (_, i) => [`${i}@x.co`, 1]),
      'email,amount',
    )
    expect(Buffer.byteLength(many)).toBeLessThan(BATCH_LIMITS.maxCsvBytes)
    const big = csvOf(
      Array.from({ length: 4_000 }, (_, i) => [
        `r${i}@example.com`,
        1,
        'n'.repeat(200),
        'r'.repeat(100),
      ]),
    )
    expect(Buffer.byteLength(big)).toBeGreaterThan(BATCH_LIMITS.maxCsvBytes)
    await expectNoChange(issuer, async () => {
      for (const [csv, text] of [
        ['ann@example.com,1\n', 'unknown column'],
        ['email,amount,notes\nann@example.com,1,x\n', 'unknown column "notes"'],
        ['email,name\nann@example.com,Ann\n', 'the amount column is missing'],
        ['email,amount,email\n', 'appears twice'],
        ['email,amount\n', 'no rows'],
        ['', 'empty'],
        ['email,amount,name\nann@example.com,1,"Ann\n', 'row 2: a quoted field is not closed'],
        ['email,amount,name\nann@example.com,1,"Ann"x\n', 'row 2: after a closing quote'],
        [many, `at most ${BATCH_LIMITS.maxRows}`],
        [big, 'at most 1048576 bytes'],
      ] as const) {
        for (const dryRun of [true, false]) {
          const call = await post(admin, issuer, { csv, reason: 'R', dryRun }, 'k-structural')
          expectProblem(call, 400, 'validation_failed')
          expect(call.body.errors).toEqual([
            { field: 'csv', message: expect.stringContaining(text) },
          ])
        }
      }
      const bad = await post(admin, issuer, {
        csv: 1,
        reason: '\u200b',
        dryRun: 'yes',
        extra: true,
      })
      expectProblem(bad, 400, 'validation_failed')
      expect((bad.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual([
        'csv',
        'dryRun',
        'extra',
        'reason',
      ])
    })
  })
})

describe('who may', () => {
  it('lets only an admin dry-run or commit (a viewer: 403), requires an Idempotency-Key to commit, and hides other issuers (404)', async () => {
    const issuer = await issuerWith()
    const other = await newIssuer()
    await addMember(other.issuerId, adminOfB, 'admin')
    const body = { csv: csvOf([['ann@example.com', 1, '', '']]), reason: 'R', dryRun: false }
    await expectNoChange(issuer, async () => {
      expectProblem(await post(viewer, issuer, body, 'k-viewer'), 403, 'forbidden')
      expectProblem(await post(viewer, issuer, { ...body, dryRun: true }), 403, 'forbidden')
      const keyless = await post(admin, issuer, body)
      expectProblem(keyless, 400, 'invalid_idempotency_key')
      // Another issuer's program on this issuer's path, and this issuer's path for B's admin.
      expectProblem(
        await post(admin, issuer, body, 'k-foreign', other.programs.TEST),
        404,
        'program_not_found',
      )
      expectProblem(await post(adminOfB, issuer, body, 'k-stranger'), 404, 'issuer_not_found')
    })
  })
})

describe('commit', () => {
  it('stores the batch, answers 202, and the worker grants every valid row once, each with its own key, the sender and the batch; counts, rows and audit', async () => {
    const issuer = await issuerWith()
    const csv = csvOf([
      ['ann@example.com', 1, 'Ann', ''],
      ['bob@example.com', 2, '', 'Own reason'],
      ['bad', 1, '', ''],
      ['ann@example.com', 1, 'Again', ''],
      ['carol@example.com', 3, '"Carol, C."', ''],
    ])
    const key = `commit-${Math.random()}`
    const call = await post(admin, issuer, { csv, reason: 'Launch', dryRun: false }, key)
    expect(call.status).toBe(202)
    const id = call.body.id as string
    expect(id).toMatch(/^bat_[0-9a-z]{26}$/)
    expect(call.headers.get('location')).toBe(
      `${batchesPath(issuer.issuerId, issuer.programs.TEST)}/${id}`,
    )
    expect(call.body).toMatchObject({
      object: 'grant_batch',
      programId: issuer.programs.TEST,
      mode: 'TEST',
      status: 'queued',
      reason: 'Launch',
      createdBy: { sub: admin.sub, email: admin.email },
      counts: { total: 5, granted: 0, failed: 2, pending: 3 },
      amount: 6,
    })
    // The one batch, as the refused calls' checks (expectNoChange) look for batches.
    expect((await batchItemsOf(issuer)).map((item) => item.batchId)).toEqual([id])

    const done = await finished(viewer, issuer, id)
    expect(done.body).toMatchObject({
      status: 'done',
      counts: { total: 5, granted: 3, failed: 2, pending: 0 },
      finishedAt: expect.any(String),
    })
    const rows = done.body.rows as Record<string, unknown>[]
    expect(rows.map((r) => [r.row, r.status, r.code ?? r.grantId])).toEqual([
      [2, 'granted', expect.stringMatching(/^gr_/)],
      [3, 'granted', expect.stringMatching(/^gr_/)],
      [4, 'failed', 'validation_failed'],
      [5, 'failed', 'duplicate_row'],
      [6, 'granted', expect.stringMatching(/^gr_/)],
    ])
    expect(rows[0]).toMatchObject({
      email: 'ann@example.com',
      name: 'Ann',
      amount: 1,
      reason: 'Launch',
    })
    expect(rows[1]).toMatchObject({ reason: 'Own reason', name: null })
    expect(rows[3]).toMatchObject({
      duplicateOf: 2,
      message: 'same e-mail, amount and reason as row 2',
    })
    expect(rows[4]).toMatchObject({ name: 'Carol, C.' })

    const { grants, issued } = await programState(issuer.programs.TEST)
    expect(grants).toHaveLength(3)
    expect(issued).toBe(6)
    for (const row of rows.filter((r) => r.status === 'granted')) {
      const grant = grants.find((g) => g.grantId === row.grantId) as GrantRecord
      expect(grant).toMatchObject({
        idempotencyKey: `batch:${id}:row:${row.row}`,
        batch: { batchId: id, row: row.row },
        sentBy: { sub: admin.sub, email: admin.email },
        amount: row.amount,
        reason: row.reason,
      })
    }
    // Paging and filtering the rows.
    const page = await read(viewer, issuer, id, '?limit=2')
    expect((page.body.rows as { row: number }[]).map((r) => r.row)).toEqual([2, 3])
    const next = await read(viewer, issuer, id, `?limit=2&cursor=${page.body.nextCursor}`)
    expect((next.body.rows as { row: number }[]).map((r) => r.row)).toEqual([4, 5])
    expect((await allRows(viewer, issuer, id, '&status=failed')).map((r) => r.row)).toEqual([4, 5])
    expectProblem(await read(viewer, issuer, id, '?status=lost'), 400, 'validation_failed')
    expectProblem(await read(viewer, issuer, id, '?cursor=zzz'), 400, 'validation_failed')

    // Whoever committed it is e-mailed once it is done (here, the local mail sink): counts only.
    const notices = readFileSync(sinkFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { to: string; subject: string; text: string })
      .filter((m) => m.text.includes(id))
    expect(notices).toEqual([
      expect.objectContaining({ to: admin.email, subject: 'Batch done: 3 of 5 rows granted' }),
    ])
    expect(notices[0]?.text).toContain(`${TEST_CONSOLE_URL.replace(/\/$/, '')}/programs/`)
    expect(notices[0]?.text).not.toMatch(/ann@example\.com|Carol/)

    // One entry for the commit, one when done; none per row.
    const audit = (await auditLog(issuer.issuerId)).filter(
      (e) => e.target.type === 'batch' || e.action === 'grant.send',
    )
    expect(audit.map((e) => [e.action, e.target.id, e.actor])).toEqual([
      ['batch.commit', id, { kind: 'person', sub: admin.sub, email: admin.email }],
      ['batch.finish', id, { kind: 'person', sub: admin.sub, email: admin.email }],
    ])
    expect(audit[0]?.details).toMatchObject({ rows: 5, valid: 3, refused: 2, amount: 6 })
    expect(audit[1]?.details).toMatchObject({ granted: 3, failed: 2 })

    // The commit again: the same batch, 200, nothing new.
    await expectNothingWritten(issuer.programs.TEST, async () => {
      const again = await post(admin, issuer, { csv, reason: 'Launch', dryRun: false }, key)
      expect(again.status).toBe(200)
      expect(again.headers.get('idempotent-replayed')).toBe('true')
      expect(again.body).toMatchObject({ id, status: 'done' })
      await api.pipeline?.drain()
    })
    // The same key with another CSV: 422.
    expectProblem(
      await post(
        admin,
        issuer,
        { csv: csvOf([['x@example.com', 1, '', '']]), reason: 'Launch', dryRun: false },
        key,
      ),
      422,
      'idempotency_key_reused',
    )
  })

  it('reports the rows after the pool ran out as pool_exhausted, and grants the others', async () => {
    const issuer = await issuerWith({ pool: 10 })
    const csv = csvOf(Array.from({ length: 15 }, (_, i) => [`p${i}@example.com`, 1, '', '']))
    const call = await post(admin, issuer, { csv, reason: 'Pool', dryRun: false }, 'pool-run')
    expect(call.status).toBe(202)
    const done = await finished(viewer, issuer, call.body.id as string)
    expect(done.body.counts).toEqual({ total: 15, granted: 10, failed: 5, canceled: 0, pending: 0 })
    const rows = done.body.rows as {
      row: number
      status: string
      code?: string
      message?: string
    }[]
    // Rows are granted in parallel: which ten get the pool is the race's; the other five are
    // refused, exactly.
    expect(rows.filter((r) => r.status === 'granted')).toHaveLength(10)
    const refused = rows.filter((r) => r.status === 'failed')
    expect(refused.map((r) => r.code)).toEqual(Array(5).fill('pool_exhausted'))
    expect(refused[0]?.message).toBe(
      'The program has 0 shares left in its pool; this grant asks for 1.',
    )
    const state = await programState(issuer.programs.TEST)
    expect([state.issued, state.program?.remaining, state.grants.length]).toEqual([10, 0, 10])
  })

  it("answers another issuer's batch, and a batch under another program, as missing (404)", async () => {
    const issuer = await issuerWith()
    const call = await post(
      admin,
      issuer,
      { csv: csvOf([['ann@example.com', 1, '', '']]), reason: 'R', dryRun: false },
      'k-404',
    )
    const id = call.body.id as string
    await finished(viewer, issuer, id)
    const other = await newIssuer()
    await addMember(other.issuerId, adminOfB, 'admin')
    expectProblem(await read(adminOfB, other, id), 404, 'batch_not_found')
    expectProblem(await read(viewer, issuer, id, '', issuer.programs.LIVE), 404, 'batch_not_found')
    expectProblem(await read(viewer, issuer, 'bat_nope'), 404, 'batch_not_found')
    expectProblem(await read(adminOfB, issuer, id), 404, 'issuer_not_found')
  })

  it('calls only what the routes and the worker declare', async () => {
    const issuer = await issuerWith()
    const access = recordAccess(dynamodb)
    let batchId = ''
    try {
      const call = await post(
        admin,
        issuer,
        { csv: csvOf([['ann@example.com', 1, '', '']]), reason: 'R', dryRun: false },
        'k-iam',
      )
      batchId = call.body.id as string
      await finished(viewer, issuer, batchId)
    } finally {
      access.stop()
    }
    const allowed = new Set([
      ...declaredAccess('CreateGrantBatch'),
      ...declaredAccess('GetGrantBatch'),
      ...Object.entries(consumerById('GrantBatchWorker').access).flatMap(([table, actions]) =>
        actions.map((a) => `${table} ${a}`),
      ),
    ])
    for (const line of access.seen) expect(allowed).toContain(line)
  })
})

describe('a program that is not active', () => {
  it('refuses the commit (409 program_inactive, nothing written); the dry run says so', async () => {
    const issuer = await issuerWith()
    await setProgramStatus(issuer.programs.TEST, 'paused')
    const body = { csv: csvOf([['ann@example.com', 1, '', '']]), reason: 'R' }
    await expectNoChange(issuer, async () => {
      expectProblem(
        await post(admin, issuer, { ...body, dryRun: false }, 'k-paused'),
        409,
        'program_inactive',
      )
      const preview = await post(admin, issuer, { ...body, dryRun: true })
      expect(preview.body.programStatus).toBe('paused')
    })
  })
})

describe('the batch model', () => {
  it('packs rows into chunks of at most 100 rows and about 64 KB, whatever the rows', () => {
    const small = Array.from({ length: 5_000 }, (_, i) => ({
      row: i + 2,
      email: `r${i}@example.com`,
      amount: 1,
    }))
    const chunks = packChunks(small)
    expect(chunks).toHaveLength(50)
    const big = Array.from({ length: 500 }, (_, i) => ({
      row: i + 2,
      email: `${'e'.repeat(240)}@example.com`,
      name: '\u{1F600}'.repeat(200),
      reason: '\u{1F600}'.repeat(300),
      amount: 1,
    }))
    for (const chunk of packChunks(big)) {
      expect(chunk.length).toBeLessThanOrEqual(100)
      expect(Buffer.byteLength(JSON.stringify(chunk))).toBeLessThan(70 * 1024)
    }
    expect(packChunks(big).flat()).toEqual(big)
  })

  it('calls a batch stalled when a chunk is in the dead letters, its chunks were never all sent, or nothing moved for 10 minutes', () => {
    const now = Date.parse('2026-11-26T10:00:00.000Z')
    const batch = {
      status: 'running',
      submittedAt: '2026-11-26T09:50:00.000Z',
      enqueuedAt: '2026-11-26T09:50:01.000Z',
      updatedAt: '2026-11-26T09:59:00.000Z',
    } as BatchRecord
    expect(batchStatus(batch, now)).toBe('running')
    expect(batchStatus({ ...batch, deadLettered: new Set([3]) }, now)).toBe('stalled')
    expect(batchStatus({ ...batch, enqueuedAt: undefined } as BatchRecord, now)).toBe('stalled')
    expect(batchStatus({ ...batch, updatedAt: '2026-11-26T09:49:59.999Z' }, now)).toBe('stalled')
    expect(batchStatus({ ...batch, status: 'done', deadLettered: new Set([3]) }, now)).toBe('done')
    expect(batchStatus({ ...batch, status: 'canceled' }, now)).toBe('canceled')
  })

  it('derives one batch id per issuer and key, and one grant key per batch and row', () => {
    expect(batchIdFor('iss_a', 'k')).toBe(batchIdFor('iss_a', 'k'))
    expect(batchIdFor('iss_a', 'k')).not.toBe(batchIdFor('iss_b', 'k'))
    expect(batchIdFor('iss_a', 'k')).toMatch(/^bat_[0-9a-z]{26}$/)
    expect(rowIdempotencyKey('bat_x', 7)).toBe('batch:bat_x:row:7')
  })
})

describe('exactly once', () => {
  /**
   * Eleven chunks, the fewest the commit sends in two SendMessageBatch calls (10 + 1), and the
   * worker's invocations run several side by side, so the faults meet every step: 110 rows in
   * chunks of SMALL_CHUNK_ROWS, as 1,100 rows make in the service's chunks of 100 (the chunks
   * are what the commit and the worker handle one by one; the rows in one only run side by side).
   * Volume is the bench's.
   */
  const ROWS = 11 * SMALL_CHUNK_ROWS
  it(`grants each valid row of a ${ROWS}-row batch in 11 chunks exactly once, committed twice at the same moment and once more, while DynamoDB calls fail`, async () => {
    const issuer = await issuerWith()
    smallChunkIssuers.add(issuer.issuerId)
    const rows: (string | number)[][] = []
    const invalid = new Set<number>()
    const duplicate = new Set<number>()
    for (let i = 0; i < ROWS; i++) {
      const row = i + 2
      if (i % 20 === 7) {
        invalid.add(row)
        rows.push([`r${i}@example.com`, 0, '', ''])
      } else if (i % 14 === 3 && i > 0) {
        duplicate.add(row)
        rows.push([...(rows[i - 1] as (string | number)[])])
      } else {
        rows.push([
          `r${i}@example.com`,
          1 + (i % 5),
          i % 3 === 0 ? `"Name, ${i}"` : '',
          i % 4 === 0 ? `Reason ${i % 7}` : '',
        ])
      }
    }
    const csv = csvOf(rows)
    const valid = ROWS - invalid.size - duplicate.size
    const key = `exactly-once-${Math.random()}`
    const body = { csv, reason: 'Bulk award', dryRun: false }

    /** The console's commit: retried as the contract says (5xx, 409 request_conflict, no answer). */
    const commit = async () => {
      for (let attempt = 1; ; attempt++) {
        const call = await post(admin, issuer, body, key).catch(() => undefined)
        if (call && call.status < 500 && call.body.code !== 'request_conflict') return call
        if (attempt === 40) throw new Error(`commit kept failing: ${call?.status} ${call?.text}`)
        await sleep(Math.random() * 50 * Math.min(attempt, 8))
      }
    }
    const faults = injectFaults(dynamodb, { rate: 0.2, seed: 20261126 })
    let answers: Call[]
    let done: Call
    try {
      const racing = await Promise.all([commit(), commit()])
      const again = await commit()
      answers = [...racing, again]
      done = await finished(viewer, issuer, answers[0]?.body.id as string, commit)
    } finally {
      faults.stop()
    }
    const id = answers[0]?.body.id as string
    expect((await new DynamoDbBatchStore(documentClient, config.tables).getBatch(id))?.chunks).toBe(
      11,
    )
    // One batch for the one key: 202 for the commit that made it (unless its answer was lost to a
    // fault), 200 replays for the others.
    expect(answers.map((a) => a.body.id)).toEqual([id, id, id])
    expect(
      answers.every(
        (a) =>
          a.status === 202 || (a.status === 200 && a.headers.get('idempotent-replayed') === 'true'),
      ),
    ).toBe(true)
    expect(answers.filter((a) => a.status === 202).length).toBeLessThanOrEqual(1)
    expect(done.body.counts).toEqual({
      total: ROWS,
      granted: valid,
      failed: invalid.size + duplicate.size,
      canceled: 0,
      pending: 0,
    })

    const state = await programState(issuer.programs.TEST)
    const ofBatch = state.grants.filter((g) => g.batch?.batchId === id)
    const perRow = new Map<number, number>()
    for (const g of ofBatch)
      perRow.set(g.batch?.row as number, (perRow.get(g.batch?.row as number) ?? 0) + 1)
    expect([...perRow.values()].filter((n) => n !== 1)).toEqual([])
    expect(ofBatch).toHaveLength(valid)
    expect(state.grants).toHaveLength(valid)
    expect(state.issued).toBe(state.grants.reduce((sum, g) => sum + g.amount, 0))
    for (const row of [...invalid, ...duplicate]) expect(perRow.has(row)).toBe(false)

    // Every row's result names its stored grant, and says why the others failed.
    const results = await allRows(viewer, issuer, id)
    expect(results).toHaveLength(ROWS)
    const stored = new Map(ofBatch.map((g) => [g.grantId, g]))
    for (const r of results) {
      if (invalid.has(r.row as number))
        expect(r).toMatchObject({ status: 'failed', code: 'validation_failed' })
      else if (duplicate.has(r.row as number))
        expect(r).toMatchObject({ status: 'failed', code: 'duplicate_row' })
      else {
        expect(r.status).toBe('granted')
        expect(stored.get(r.grantId as string)).toMatchObject({
          batch: { row: r.row },
          amount: r.amount,
        })
      }
    }
    expect(faults.stats['lost-response']).toBeGreaterThan(0)
    const audit = (await auditLog(issuer.issuerId)).filter((e) => e.target.id === id)
    expect(audit.map((e) => e.action)).toEqual(['batch.commit', 'batch.finish'])
    process.stdout.write(
      `\n${ROWS}-row batch: ${valid} granted once each; DynamoDB calls ${faults.stats.calls}, injected before ${faults.stats.before}, lost response ${faults.stats['lost-response']}, throttle ${faults.stats.throttle}; answers ${answers.map((a) => a.status).join(', ')}\n`,
    )
  })
})

describe('the worker, run by hand as Lambda runs it from SQS', () => {
  /** The commit route's handler with a queue that only records: the test delivers the chunks. */
  const commitWithoutWorker = async (issuer: Issuer, csv: string, key: string) => {
    const queue = recordingQueue()
    const handler = makeCreateGrantBatchHandler(
      createGrantBatchDeps(runtime, { queue: queue.queue }),
    )
    const result = await handler(
      {
        version: '2.0',
        routeKey: 'POST /manage/issuers/{issuerId}/programs/{programId}/grant-batches',
        rawPath: batchesPath(issuer.issuerId, issuer.programs.TEST),
        rawQueryString: '',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        pathParameters: { issuerId: issuer.issuerId, programId: issuer.programs.TEST },
        requestContext: {
          requestId: `req-${Math.random()}`,
          http: { method: 'POST' },
          authorizer: { jwt: { claims: { sub: admin.sub }, scopes: [] } },
        },
        body: JSON.stringify({ csv, reason: 'By hand', dryRun: false }),
        isBase64Encoded: false,
      } as never,
      { awsRequestId: 'local', getRemainingTimeInMillis: () => 10_000 } as never,
    )
    expect((result as { statusCode: number }).statusCode).toBe(202)
    return { batchId: JSON.parse((result as { body: string }).body).id as string, queue }
  }
  /** Lambda's remaining time, counting down on `clock` (real time unless a test passes its own). */
  const context = (ms: number, clock: () => number = Date.now) => {
    const end = clock() + ms
    return {
      awsRequestId: `run-${Math.random()}`,
      getRemainingTimeInMillis: () => Math.max(0, end - clock()),
    }
  }
  /**
   * A stopped clock for a delivery's budget (the worker's `now`): it moves only when the test
   * moves it, so whether a delivery runs out of time never depends on the machine's speed.
   */
  const stoppedClock = () => {
    const clock = new TestClock(() => Date.now())
    clock.freeze()
    return clock
  }
  /** The SQS event of one delivery of `body`, its `receiveCount`th. */
  const delivery = (body: string, receiveCount = 1, messageId = `m-${Math.random()}`) =>
    sqsEventOf(GRANT_BATCH_ROWS_QUEUE.id, [
      {
        messageId,
        receiptHandle: `rh-${Math.random()}`,
        body,
        receiveCount,
        sentAt: Date.now(),
        firstReceivedAt: Date.now(),
      },
    ])

  it('sends one message per chunk; a chunk that can grant nothing comes back, is marked on its last delivery, and a later delivery (two at once) finishes it once', async () => {
    const issuer = await issuerWith()
    const csv = csvOf(Array.from({ length: 30 }, (_, i) => [`w${i}@example.com`, 1, '', '']))
    const { batchId, queue } = await commitWithoutWorker(issuer, csv, `by-hand-${Math.random()}`)
    expect(queue.started).toEqual([{ batchId, chunk: 0 }])
    const body = JSON.stringify(queue.started[0])
    // Its backoff waits (the worker's and its grants') move a stopped clock instead of passing:
    // the 2 s deliveries run out of time after the same retries, in no real time.
    const throttled = stoppedClock()
    const worker = makeBatchWorkerHandler(runtime, {
      now: throttled.now,
      sleep: async (ms) => throttled.advance(ms),
    })

    const faults = injectFaults(dynamodb, {
      rate: 1,
      kinds: ['throttle'],
      commands: ['TransactWriteItemsCommand'],
    })
    try {
      // Handed back (partial batch response), not thrown: only this message comes again.
      expect(await worker(delivery(body, 1, 'first'), context(2_000, throttled.now))).toEqual({
        batchItemFailures: [{ itemIdentifier: 'first' }],
      })
      expect(faults.stats.throttle).toBeGreaterThan(0)
      expect((await read(viewer, issuer, batchId)).body.status).toBe('queued')
      // Its last allowed delivery: SQS moves it to the dead letters, and the batch says so.
      const last = GRANT_BATCH_ROWS_QUEUE.maxReceiveCount
      expect(await worker(delivery(body, last, 'last'), context(2_000, throttled.now))).toEqual({
        batchItemFailures: [{ itemIdentifier: 'last' }],
      })
    } finally {
      faults.stop()
    }
    expect((await programState(issuer.programs.TEST)).grants).toHaveLength(0)
    expect((await read(viewer, issuer, batchId)).body.status).toBe('stalled')

    // Redriven, and delivered twice at the same moment: each row granted once, the batch done
    // (on a stopped clock: neither delivery can run out of time, however slow the machine).
    const stopped = stoppedClock()
    const onTime = makeBatchWorkerHandler(runtime, { now: stopped.now })
    const outcomes = await Promise.all([
      onTime(delivery(body, 1, 'a'), context(20_000, stopped.now)),
      onTime(delivery(body, 1, 'b'), context(20_000, stopped.now)),
    ])
    expect(outcomes).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }])
    const state = await programState(issuer.programs.TEST)
    expect(state.grants).toHaveLength(30)
    expect(new Set(state.grants.map((g) => g.batch?.row)).size).toBe(30)
    expect(state.issued).toBe(30)
    const batch = await read(viewer, issuer, batchId)
    expect(batch.body).toMatchObject({
      status: 'done',
      counts: { total: 30, granted: 30, failed: 0, pending: 0 },
    })
    // A late or repeated delivery changes nothing; one that is not a chunk message comes back
    // every time (and so ends in the dead letters).
    expect(await onTime(delivery(body), context(5_000, stopped.now))).toEqual({
      batchItemFailures: [],
    })
    expect((await programState(issuer.programs.TEST)).grants).toHaveLength(30)
    expect(await onTime(delivery('nonsense', 1, 'x'), context(5_000, stopped.now))).toEqual({
      batchItemFailures: [{ itemIdentifier: 'x' }],
    })
    const audit = (await auditLog(issuer.issuerId)).filter((e) => e.target.id === batchId)
    expect(audit.map((e) => e.action)).toEqual(['batch.commit', 'batch.finish'])
  })

  it('out of time, commits the rows it did and hands the chunk back; the next delivery goes on, every row granted once', async () => {
    const issuer = await issuerWith()
    const csv = csvOf(Array.from({ length: 100 }, (_, i) => [`h${i}@example.com`, 1, '', '']))
    const { batchId, queue } = await commitWithoutWorker(issuer, csv, `handover-${Math.random()}`)
    const body = JSON.stringify(queue.started[0])
    // The first delivery (4 rows at a time) meets a slow DynamoDB after 20 rows (each further
    // grant takes 1 s of the delivery's clock, which stands still otherwise): a 20 s run keeps
    // 30% in reserve, so it stops starting rows at 14 s, short of 100 rows (20 + 14), and still
    // has time to commit the ones it did. The clock is the test's: no real second passes, and
    // the first 20 rows take no time at all, however loaded the machine.
    const clock = stoppedClock()
    const grants = new DynamoDbGrantStore(documentClient, config.tables)
    const grantTokens = makeGrantTokens({
      store: grants,
      access: new AccessCache(grants, { now: () => runtime.monotonic.now() }),
      clock: () => runtime.clock.now(),
    })
    let started = 0
    const slow = makeBatchRowsWorker({
      batches: new DynamoDbBatchStore(documentClient, config.tables),
      grantTokens: async (input) => {
        if (++started > 20) clock.advance(1_000)
        return grantTokens(input)
      },
      clock: () => runtime.clock.now(),
      now: clock.now,
      rowsInParallel: 4,
    })
    const first = await slow(delivery(body, 1, 'short'), context(20_000, clock.now))
    expect(first).toEqual({ batchItemFailures: [{ itemIdentifier: 'short' }] })
    const partly = await read(viewer, issuer, batchId)
    expect(partly.body.status).toBe('running')
    const { granted } = partly.body.counts as { granted: number }
    expect(granted).toBeGreaterThanOrEqual(20)
    expect(granted).toBeLessThan(100)
    const next = stoppedClock()
    const worker = makeBatchWorkerHandler(runtime, { now: next.now })
    expect(await worker(delivery(body, 2), context(30_000, next.now))).toEqual({
      batchItemFailures: [],
    })
    const done = await read(viewer, issuer, batchId)
    expect(done.body.counts).toEqual({
      total: 100,
      granted: 100,
      failed: 0,
      canceled: 0,
      pending: 0,
    })
    const state = await programState(issuer.programs.TEST)
    expect(new Set(state.grants.map((g) => g.batch?.row)).size).toBe(100)
    expect(state.grants).toHaveLength(100)
  })
})

describe('sending the chunks in AWS', () => {
  it("uses the SDK's SQS client: SendMessageBatch of 10 chunk messages a call to the queue's URL", async () => {
    const { createServer } = await import('node:http')
    const { createHash } = await import('node:crypto')
    const { SQSClient } = await import('@aws-sdk/client-sqs')
    const { sqsQueueSender } = await import('../../functions/runtime/queue-sender')
    const seen: {
      target: unknown
      body: { QueueUrl: string; Entries: { Id: string; MessageBody: string }[] }
    }[] = []
    const server = createServer((req, res) => {
      let text = ''
      req.on('data', (c) => {
        text += c
      })
      req.on('end', () => {
        const body = JSON.parse(text)
        seen.push({ target: req.headers['x-amz-target'], body })
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' })
        res.end(
          JSON.stringify({
            // The SDK checks each body's MD5, as SQS computes it.
            Successful: body.Entries.map((e: { Id: string; MessageBody: string }) => ({
              Id: e.Id,
              MessageId: `m-${e.Id}`,
              MD5OfMessageBody: createHash('md5').update(e.MessageBody, 'utf8').digest('hex'),
            })),
            Failed: [],
          }),
        )
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as { port: number }
    const client = new SQSClient({
      region: 'eu-west-1',
      endpoint: `http://127.0.0.1:${port}`,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    })
    const url = `http://127.0.0.1:${port}/000000000000/GrantBatchRows`
    try {
      const issuer = await issuerWith()
      const csv = csvOf(Array.from({ length: 1_150 }, (_, i) => [`s${i}@example.com`, 1, '', '']))
      const handler = makeCreateGrantBatchHandler(
        createGrantBatchDeps(runtime, { queue: sqsQueueSender(client, url) }),
      )
      const result = (await handler(
        {
          version: '2.0',
          routeKey: 'POST /manage/issuers/{issuerId}/programs/{programId}/grant-batches',
          rawPath: batchesPath(issuer.issuerId, issuer.programs.TEST),
          rawQueryString: '',
          headers: {
            'content-type': 'application/json',
            'idempotency-key': `sqs-${Math.random()}`,
          },
          pathParameters: { issuerId: issuer.issuerId, programId: issuer.programs.TEST },
          requestContext: {
            requestId: `req-${Math.random()}`,
            http: { method: 'POST' },
            authorizer: { jwt: { claims: { sub: admin.sub }, scopes: [] } },
          },
          body: JSON.stringify({ csv, reason: 'SQS', dryRun: false }),
          isBase64Encoded: false,
        } as never,
        { awsRequestId: 'local', getRemainingTimeInMillis: () => 10_000 } as never,
      )) as { statusCode: number; body: string }
      expect(result.statusCode).toBe(202)
      const batchId = JSON.parse(result.body).id as string
      expect(seen.map((s) => s.target)).toEqual(Array(2).fill('AmazonSQS.SendMessageBatch'))
      expect(seen.every((s) => s.body.QueueUrl === url)).toBe(true)
      const messages = seen.flatMap((s) => s.body.Entries.map((e) => JSON.parse(e.MessageBody)))
      expect(messages.sort((a, b) => a.chunk - b.chunk)).toEqual(
        Array.from({ length: 12 }, (_, chunk) => ({ batchId, chunk })),
      )
    } finally {
      client.destroy()
      server.close()
    }
  })
})
