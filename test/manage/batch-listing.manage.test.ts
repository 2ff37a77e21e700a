import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb'
import type { SQSBatchResponse } from 'aws-lambda'
import { type BatchRecord, batchIdFor, batchKey } from '../../functions/domain/batch'
import { DynamoDbBatchStore } from '../../functions/stores/batches.dynamodb'
import { LOCAL_CONSUMERS } from '../../local/consumer-factories'
import type { ConsumerFactories } from '../../local/pipeline'
import {
  type Call,
  expectProblem,
  type Issuer,
  newIssuer,
  programState,
  startApi,
} from '../support/api'
import { contractCheck } from '../support/contract-check'
import { type Person, signUpPerson } from '../support/identity'
import { config, documentClient, dynamodb } from '../support/runtime'
import { THROTTLED, UNEXPECTED, withDynamoDbFault } from './dynamodb-faults'
import {
  addMember,
  auditLog,
  declaredAccess,
  manageCall,
  recordAccess,
  sleep,
} from './grants-support'

/**
 * A program's batches through the local server with real access tokens, and the worker from the
 * GrantBatchRows queue as npm start runs it: the listing (newest first, paged, viewer and up, other
 * issuers hidden) and cancel (admin; idempotent; a finished batch refused; audited; the rows not
 * yet tried are never granted, the granted ones stay). The worker's deliveries pass a gate this
 * file holds, so "a cancel while chunks are still queued" is a state the test makes, not a race.
 */

/** Chunks the worker is given: `passes` more go through, the rest wait for `open()`. */
const gate = {
  passes: Number.POSITIVE_INFINITY,
  waiting: [] as (() => void)[],
  /**
   * `<batchId>:<chunk>` of messages answered as handled without the worker seeing them, once each:
   * a message gone from the queue, as one moved to the dead letters is.
   */
  lose: new Set<string>(),
  hold(passes = 0) {
    this.passes = passes
  },
  open() {
    this.passes = Number.POSITIVE_INFINITY
    for (const resume of this.waiting.splice(0)) resume()
  },
}
const gatedWorker: ConsumerFactories['GrantBatchWorker'] = (runtime, queues) => {
  const worker = (LOCAL_CONSUMERS.GrantBatchWorker as NonNullable<typeof gatedWorker>)(
    runtime,
    queues,
  )
  // The gate counts chunks, not deliveries: a delivery may carry two chunks (the queue's batch
  // size), and how many are waiting when the queue is polled is the machine's business.
  return async (event, ...rest) => {
    const batchItemFailures: { itemIdentifier: string }[] = []
    for (const record of event.Records) {
      if (gate.passes > 0) gate.passes--
      else await new Promise<void>((resume) => gate.waiting.push(resume))
      const { batchId, chunk } = JSON.parse(record.body) as { batchId: string; chunk: number }
      if (gate.lose.delete(`${batchId}:${chunk}`)) continue
      const answer = (await worker({ Records: [record] }, ...rest)) as SQSBatchResponse | undefined
      batchItemFailures.push(...(answer?.batchItemFailures ?? []))
    }
    return { batchItemFailures }
  }
}

let api: Awaited<ReturnType<typeof startApi>>
let admin: Person
let viewer: Person
let adminOfB: Person

beforeAll(async () => {
  api = await startApi({
    pipeline: { consumers: { ...LOCAL_CONSUMERS, GrantBatchWorker: gatedWorker } },
  })
  ;[admin, viewer, adminOfB] = (await Promise.all([
    signUpPerson(),
    signUpPerson(),
    signUpPerson(),
  ])) as [Person, Person, Person]
})
afterAll(async () => {
  gate.open()
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
const batchesPath = (issuer: Issuer, programId = issuer.programs.TEST) =>
  `/manage/issuers/${issuer.issuerId}/programs/${programId}/grant-batches`
const commit = (issuer: Issuer, csv: string, key = `k-${Math.random()}`) =>
  manageCall(api.baseUrl, admin, 'POST', batchesPath(issuer), {
    body: { csv, reason: 'Listing test', dryRun: false },
    headers: { 'idempotency-key': key },
  })
const list = (person: Person, issuer: Issuer, query = '', programId?: string) =>
  manageCall(api.baseUrl, person, 'GET', `${batchesPath(issuer, programId)}${query}`)
const read = (person: Person, issuer: Issuer, batchId: string, query = '') =>
  manageCall(api.baseUrl, person, 'GET', `${batchesPath(issuer)}/${batchId}${query}`)
const cancel = (person: Person, issuer: Issuer, batchId: string, programId?: string) =>
  manageCall(api.baseUrl, person, 'POST', `${batchesPath(issuer, programId)}/${batchId}/cancel`)

/** `n` rows, one chunk per 100, each a valid grant of 1 share. */
const csvOfRows = (n: number, prefix: string) =>
  `email,amount\r\n${Array.from({ length: n }, (_, i) => `${prefix}-${i}@example.com,1`).join('\r\n')}\r\n`

/** Until the batch is final (the gate open). */
const finished = async (person: Person, issuer: Issuer, batchId: string) => {
  const started = Date.now()
  for (;;) {
    await api.pipeline?.drain(120_000)
    const call = documented(BATCH_PATH, 'get', await read(person, issuer, batchId))
    if (call.status === 200 && ['done', 'canceled'].includes(call.body.status as string)) {
      return call
    }
    if (Date.now() - started > 240_000) throw new Error(`batch ${batchId}: ${call.text}`)
    await sleep(100)
  }
}

/** Until the batch's counters say so (the worker's committed rows). */
const until = async (
  issuer: Issuer,
  batchId: string,
  done: (body: Record<string, unknown>) => boolean,
) => {
  const started = Date.now()
  for (;;) {
    const call = documented(BATCH_PATH, 'get', await read(viewer, issuer, batchId))
    if (call.status === 200 && done(call.body)) return call
    if (Date.now() - started > 120_000) throw new Error(`batch ${batchId}: ${call.text}`)
    await sleep(50)
  }
}

const batchItem = async (batchId: string) =>
  (
    await documentClient.send(
      new GetCommand({
        TableName: config.tables.grants,
        Key: { grantId: batchKey(batchId) },
        ConsistentRead: true,
      }),
    )
  ).Item as BatchRecord

const LIST_PATH = '/manage/issuers/{issuerId}/programs/{programId}/grant-batches'
const BATCH_PATH = `${LIST_PATH}/{batchId}`
const CANCEL_PATH = `${BATCH_PATH}/cancel`
// The contract (openapi.json) against these answers: each status listed, each body its schema's.
const contract = contractCheck()
const documented = (
  path: string,
  method: string,
  answer: Call,
  options?: Parameters<typeof contract.check>[3],
) => {
  contract.check(path, method, answer, options)
  return answer
}
/** A CSV answer against the document (the checker reads its text, by its media type). */
const documentedCsv = (path: string, answer: Call) => {
  contract.check(path, 'get', answer)
  return answer
}

describe('the listing', () => {
  it("lists a program's batches newest first, a page at a time, as GetGrantBatch shows each, for a viewer", async () => {
    const issuer = await issuerWith()
    const ids: string[] = []
    for (const n of [1, 2, 3]) {
      const call = await commit(issuer, csvOfRows(n, `list-${n}`))
      expect(call.status).toBe(202)
      ids.push(call.body.id as string)
      await sleep(5) // distinct createdAt, so "newest first" has one answer
    }
    for (const id of ids) await finished(viewer, issuer, id)
    const [first, second, third] = ids as [string, string, string]

    const page1 = documented(LIST_PATH, 'get', await list(viewer, issuer, '?limit=2'))
    expect(page1.status).toBe(200)
    expect(page1.headers.get('cache-control')).toBe('no-store')
    expect((page1.body.data as { id: string }[]).map((b) => b.id)).toEqual([third, second])
    expect(page1.body.nextCursor).toEqual(expect.any(String))
    const page2 = documented(
      LIST_PATH,
      'get',
      await list(viewer, issuer, `?limit=2&cursor=${page1.body.nextCursor}`),
    )
    expect((page2.body.data as { id: string }[]).map((b) => b.id)).toEqual([first])
    expect(page2.body.nextCursor).toBeNull()
    // A page exactly full promises no next page.
    const all = await list(viewer, issuer, '?limit=3')
    expect((all.body.data as { id: string }[]).map((b) => b.id)).toEqual([third, second, first])
    expect(all.body.nextCursor).toBeNull()

    // Each listed batch is the batch as its own page shows it (without the rows).
    const { rows: _rows, nextCursor: _next, ...own } = (await read(viewer, issuer, third)).body
    expect((all.body.data as Record<string, unknown>[])[0]).toEqual(own)
    expect(own).toMatchObject({
      object: 'grant_batch',
      status: 'done',
      stalled: false,
      counts: { total: 3, granted: 3, failed: 0, canceled: 0, pending: 0 },
      startedAt: expect.any(String),
      cancelRequestedAt: null,
      canceledBy: null,
      deadLetteredChunks: 0,
      etaSeconds: 0,
    })

    // Another program of the issuer has none of them.
    const live = await list(viewer, issuer, '', issuer.programs.LIVE)
    expect(live.body).toEqual({ object: 'list', data: [], nextCursor: null })
  })

  it('leaves out batches written before batches carried their listing keys', async () => {
    const issuer = await issuerWith()
    const call = await commit(issuer, csvOfRows(1, 'legacy-new'))
    const listed = call.body.id as string
    await finished(viewer, issuer, listed)
    // The same batch as an item written before issue 20: no programSlot, no createdAt.
    const { programSlot: _slot, createdAt: _created, ...legacy } = await batchItem(listed)
    const legacyId = batchIdFor(issuer.issuerId, `legacy-${Math.random()}`)
    await documentClient.send(
      new PutCommand({
        TableName: config.tables.grants,
        Item: { ...legacy, batchId: legacyId, grantId: batchKey(legacyId) },
      }),
    )
    const page = await list(viewer, issuer)
    expect((page.body.data as { id: string }[]).map((b) => b.id)).toEqual([listed])
    // Its own page still shows it.
    expect(documented(BATCH_PATH, 'get', await read(viewer, issuer, legacyId)).status).toBe(200)
  })

  it("refuses what it cannot read (400), answers another issuer's program as missing (404), and needs a member", async () => {
    const issuer = await issuerWith()
    const other = await newIssuer()
    await addMember(other.issuerId, adminOfB, 'admin')
    for (const query of ['?limit=0', '?limit=101', '?limit=x', '?cursor=zzz', '?status=done']) {
      const call = documented(LIST_PATH, 'get', await list(viewer, issuer, query))
      expectProblem(call, 400, 'validation_failed')
    }
    // A cursor of another kind (a grant listing's) is not a batch cursor.
    const grantCursor = Buffer.from(
      `2026-11-26T10:00:00.000Z gr_${'0'.repeat(26)}`,
      'utf8',
    ).toString('base64url')
    expectProblem(await list(viewer, issuer, `?cursor=${grantCursor}`), 400, 'validation_failed')
    expectProblem(
      documented(LIST_PATH, 'get', await list(viewer, issuer, '', other.programs.TEST)),
      404,
      'program_not_found',
    )
    expectProblem(await list(viewer, issuer, '', 'prg_nope'), 404, 'program_not_found')
    expectProblem(await list(adminOfB, issuer), 404, 'issuer_not_found')
    const anonymous = await manageCall(api.baseUrl, undefined, 'GET', batchesPath(issuer))
    expect(anonymous.status).toBe(401)
  })
})

describe('one batch and its rows (GetGrantBatch)', () => {
  it('shows the batch and a page of its rows, what became of each, filtered by status, for a viewer', async () => {
    const issuer = await issuerWith()
    const csv = [
      'email,amount,name,reason',
      'ok-1@example.com,1,Ann,First',
      'not-an-address,1,,',
      'ok-1@example.com,1,Ann,First',
      'ok-2@example.com,2,,',
      '',
    ].join('\r\n')
    const call = await commit(issuer, csv)
    expect(call.status).toBe(202)
    const batchId = call.body.id as string
    await finished(viewer, issuer, batchId)

    const whole = documented(BATCH_PATH, 'get', await read(viewer, issuer, batchId), {
      examples: 'ok',
    })
    expect(whole.status).toBe(200)
    expect(whole.headers.get('cache-control')).toBe('no-store')
    expect(whole.body).toMatchObject({
      id: batchId,
      status: 'done',
      counts: { total: 4, granted: 2, failed: 2, canceled: 0, pending: 0 },
      nextCursor: null,
    })
    const rows = whole.body.rows as Record<string, unknown>[]
    expect(rows.map((r) => [r.row, r.status])).toEqual([
      [2, 'granted'],
      [3, 'failed'],
      [4, 'failed'],
      [5, 'granted'],
    ])
    expect(rows[0]).toMatchObject({ email: 'ok-1@example.com', name: 'Ann', amount: 1 })
    expect(rows[0]?.grantId).toEqual(expect.stringMatching(/^gr_/))
    expect(rows[1]).toMatchObject({ code: 'validation_failed', errors: expect.any(Array) })
    expect(rows[2]).toMatchObject({ code: 'duplicate_row', duplicateOf: 2 })
    expect(rows[3]).toMatchObject({ name: null, reason: 'Listing test' })

    // A page at a time, and only one state.
    const page1 = documented(BATCH_PATH, 'get', await read(viewer, issuer, batchId, '?limit=3'))
    expect((page1.body.rows as unknown[]).length).toBe(3)
    const page2 = documented(
      BATCH_PATH,
      'get',
      await read(viewer, issuer, batchId, `?limit=3&cursor=${page1.body.nextCursor}`),
    )
    expect([...(page1.body.rows as unknown[]), ...(page2.body.rows as unknown[])]).toEqual(rows)
    expect(page2.body.nextCursor).toBeNull()
    const failed = documented(
      BATCH_PATH,
      'get',
      await read(viewer, issuer, batchId, '?status=failed'),
    )
    expect((failed.body.rows as { row: number }[]).map((r) => r.row)).toEqual([3, 4])

    // The same rows as CSV, a page at a time: the header row on the first page only.
    const csvPage = async (query: string) =>
      documentedCsv(
        BATCH_PATH,
        await manageCall(api.baseUrl, viewer, 'GET', `${batchesPath(issuer)}/${batchId}${query}`, {
          headers: { accept: 'text/csv' },
        }),
      )
    const first = await csvPage('?limit=3')
    expect(first.status).toBe(200)
    expect(first.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present')
    const cursor = first.headers.get('x-next-cursor')
    expect(cursor).toEqual(expect.any(String))
    const second = await csvPage(`?limit=3&cursor=${cursor}`)
    expect(second.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=absent')
    expect(second.headers.get('x-next-cursor')).toBeNull()
    expect(`${first.text}${second.text}`.split('\r\n').filter(Boolean)).toHaveLength(
      1 + rows.length,
    )
  })

  it('refuses what it cannot read (400), answers a batch not of this program or issuer as missing (404), and needs a token (401)', async () => {
    const issuer = await issuerWith()
    const other = await newIssuer()
    await addMember(other.issuerId, adminOfB, 'admin')
    const call = await commit(issuer, csvOfRows(1, 'batch-refusals'))
    const batchId = call.body.id as string
    await finished(viewer, issuer, batchId)
    for (const query of [
      '?limit=0',
      '?limit=501',
      '?limit=x',
      '?cursor=zzz',
      '?status=done',
      '?x=1',
    ]) {
      expectProblem(
        documented(BATCH_PATH, 'get', await read(viewer, issuer, batchId, query)),
        400,
        'validation_failed',
      )
    }
    const inProgram = (programId: string, id = batchId) =>
      manageCall(api.baseUrl, viewer, 'GET', `${batchesPath(issuer, programId)}/${id}`)
    expectProblem(
      documented(BATCH_PATH, 'get', await inProgram(issuer.programs.LIVE)),
      404,
      'batch_not_found',
    )
    expectProblem(
      documented(BATCH_PATH, 'get', await read(viewer, issuer, 'bat_nope')),
      404,
      'batch_not_found',
    )
    expectProblem(
      documented(BATCH_PATH, 'get', await inProgram('prg_nope')),
      404,
      'program_not_found',
    )
    expectProblem(
      documented(BATCH_PATH, 'get', await read(adminOfB, issuer, batchId)),
      404,
      'issuer_not_found',
    )
    const anonymous = documented(
      BATCH_PATH,
      'get',
      await manageCall(api.baseUrl, undefined, 'GET', `${batchesPath(issuer)}/${batchId}`),
    )
    expect(anonymous.status).toBe(401)
    // DynamoDB throttling on the read of the rows: 503; a failure no one planned for: 500.
    const throttled = documented(
      BATCH_PATH,
      'get',
      await withDynamoDbFault(THROTTLED, ['BatchGetItemCommand'], () =>
        read(viewer, issuer, batchId),
      ),
    )
    expectProblem(throttled, 503, 'service_unavailable')
    const broken = documented(
      BATCH_PATH,
      'get',
      await withDynamoDbFault(UNEXPECTED, ['BatchGetItemCommand'], () =>
        read(viewer, issuer, batchId),
      ),
    )
    expectProblem(broken, 500, 'internal_error')
    expect(broken.text).not.toContain(UNEXPECTED)
    const seen = [...contract.seen].filter((s) => s.startsWith(`get ${BATCH_PATH} `))
    expect(seen.sort()).toEqual(
      [200, 400, 401, 404, 500, 503].map((status) => `get ${BATCH_PATH} ${status}`).sort(),
    )
  })
})

describe('cancel', () => {
  it('stops the rows not yet tried: granted rows stay, the others end canceled, once; audited; asked again is the same cancel', async () => {
    const issuer = await issuerWith()
    // One delivery (one chunk of 100 rows) goes through; the other two chunks wait at the gate.
    gate.hold(1)
    let batchId = ''
    try {
      const call = await commit(issuer, csvOfRows(300, 'cancel'))
      expect(call.status).toBe(202)
      batchId = call.body.id as string
      const running = await until(
        issuer,
        batchId,
        (b) => (b.counts as { granted: number }).granted === 100,
      )
      expect(running.body).toMatchObject({ status: 'running', startedAt: expect.any(String) })

      // A viewer may not cancel, another issuer's admin does not see it, nor does another program.
      const other = await newIssuer()
      await addMember(other.issuerId, adminOfB, 'admin')
      const auditBefore = (await auditLog(issuer.issuerId)).length
      expectProblem(
        documented(CANCEL_PATH, 'post', await cancel(viewer, issuer, batchId)),
        403,
        'forbidden',
      )
      expectProblem(await cancel(adminOfB, issuer, batchId), 404, 'issuer_not_found')
      expectProblem(
        documented(CANCEL_PATH, 'post', await cancel(admin, issuer, batchId, issuer.programs.LIVE)),
        404,
        'batch_not_found',
      )
      expectProblem(await cancel(admin, issuer, 'bat_nope'), 404, 'batch_not_found')
      expect((await auditLog(issuer.issuerId)).length).toBe(auditBefore)
      expect((await batchItem(batchId)).cancelRequestedAt).toBeUndefined()

      const asked = documented(CANCEL_PATH, 'post', await cancel(admin, issuer, batchId))
      expect(asked.status).toBe(202)
      expect(asked.headers.get('cache-control')).toBe('no-store')
      expect(asked.body).toMatchObject({
        id: batchId,
        status: 'canceling',
        cancelRequestedAt: expect.any(String),
        canceledBy: { sub: admin.sub, email: admin.email },
        counts: { total: 300, granted: 100, failed: 0, canceled: 0, pending: 200 },
        etaSeconds: null,
      })
      // Again, before the worker got to it: the same cancel, nothing written.
      const again = await cancel(admin, issuer, batchId)
      expect(again.status).toBe(202)
      expect(again.body.cancelRequestedAt).toBe(asked.body.cancelRequestedAt)
      // The listing says so too.
      const listed = await list(viewer, issuer)
      expect(listed.body.data).toEqual([
        expect.objectContaining({ id: batchId, status: 'canceling' }),
      ])
    } finally {
      gate.open()
    }

    const done = await finished(viewer, issuer, batchId)
    expect(done.body).toMatchObject({
      status: 'canceled',
      counts: { total: 300, granted: 100, failed: 0, canceled: 200, pending: 0 },
      finishedAt: expect.any(String),
      etaSeconds: 0,
    })
    // Exactly the granted rows have grants; the canceled ones never will.
    const { grants, issued } = await programState(issuer.programs.TEST)
    expect(grants).toHaveLength(100)
    expect(issued).toBe(100)
    const canceledRows: Record<string, unknown>[] = []
    let cursor: string | null = null
    do {
      const page: Call = documented(
        BATCH_PATH,
        'get',
        await read(
          viewer,
          issuer,
          batchId,
          `?status=canceled&limit=500${cursor ? `&cursor=${cursor}` : ''}`,
        ),
      )
      canceledRows.push(...(page.body.rows as Record<string, unknown>[]))
      cursor = page.body.nextCursor as string | null
    } while (cursor !== null)
    expect(canceledRows).toHaveLength(200)
    expect(canceledRows.every((r) => r.status === 'canceled' && r.grantId === undefined)).toBe(true)
    const grantedEmails = new Set(grants.map((g) => g.recipient.email))
    expect(canceledRows.some((r) => grantedEmails.has(r.email as string))).toBe(false)

    // A cancel asked again once the batch is canceled: still that cancel (202), nothing written.
    const late = await cancel(admin, issuer, batchId)
    expect(late.status).toBe(202)
    expect(late.body).toMatchObject({
      status: 'canceled',
      cancelRequestedAt: done.body.cancelRequestedAt,
    })

    const entries = (await auditLog(issuer.issuerId)).filter((e) => e.target.id === batchId)
    expect(entries.map((e) => e.action)).toEqual(['batch.commit', 'batch.cancel', 'batch.finish'])
    expect(entries[1]).toMatchObject({
      actor: { kind: 'person', sub: admin.sub, email: admin.email },
      details: { programId: issuer.programs.TEST, total: 300, granted: 100, left: 200 },
    })
    expect(entries[2]?.details).toMatchObject({ status: 'canceled', granted: 100, canceled: 200 })
  })

  it('refuses a batch that finished before any cancel (409 batch_finished), writing nothing', async () => {
    const issuer = await issuerWith()
    const call = await commit(issuer, csvOfRows(2, 'finished'))
    const batchId = call.body.id as string
    await finished(viewer, issuer, batchId)
    const before = await batchItem(batchId)
    const audit = (await auditLog(issuer.issuerId)).length
    const refused = documented(CANCEL_PATH, 'post', await cancel(admin, issuer, batchId))
    expectProblem(refused, 409, 'batch_finished')
    expect(refused.body.detail).toContain('done')
    expect(await batchItem(batchId)).toEqual(before)
    expect((await auditLog(issuer.issuerId)).length).toBe(audit)
  })

  it('calls exactly what the two routes declare', async () => {
    const issuer = await issuerWith()
    gate.hold(0)
    let batchId = ''
    try {
      const call = await commit(issuer, csvOfRows(1, 'iam'))
      batchId = call.body.id as string
      const listing = recordAccess(dynamodb)
      try {
        expect((await list(viewer, issuer)).status).toBe(200)
      } finally {
        listing.stop()
      }
      expect(listing.seen).toEqual(declaredAccess('ListGrantBatches'))
      const canceling = recordAccess(dynamodb)
      try {
        expect((await cancel(admin, issuer, batchId)).status).toBe(202)
      } finally {
        canceling.stop()
      }
      expect(canceling.seen).toEqual(declaredAccess('CancelGrantBatch'))
    } finally {
      gate.open()
    }
    // No delivery of it is left waiting for the next test's gate.
    await finished(viewer, issuer, batchId)
  })

  it('finishes a stalled batch: its chunk in the dead letters is sent again and the worker cancels its rows, with no redrive', async () => {
    const issuer = await issuerWith()
    // Chunk 1's message is gone (in the dead letters, as the worker's last delivery records it);
    // chunk 0 is granted. Nothing will move the batch again by itself.
    const call = await commit(issuer, csvOfRows(200, 'stalled'))
    const batchId = call.body.id as string
    gate.lose.add(`${batchId}:1`)
    await until(issuer, batchId, (b) => (b.counts as { granted: number }).granted === 100)
    await api.pipeline?.drain(60_000)
    expect(gate.lose.size).toBe(0)
    await new DynamoDbBatchStore(documentClient, config.tables).markDeadLettered(batchId, 1)
    const stalled = documented(BATCH_PATH, 'get', await read(viewer, issuer, batchId))
    expect(stalled.body).toMatchObject({
      status: 'stalled',
      stalled: true,
      deadLetteredChunks: 1,
      counts: { total: 200, granted: 100, canceled: 0, pending: 100 },
    })

    const asked = documented(CANCEL_PATH, 'post', await cancel(admin, issuer, batchId))
    expect(asked.status).toBe(202)
    expect(asked.body).toMatchObject({ status: 'canceling', stalled: true })
    const done = await finished(viewer, issuer, batchId)
    expect(done.body).toMatchObject({
      status: 'canceled',
      stalled: false,
      deadLetteredChunks: 0,
      counts: { total: 200, granted: 100, failed: 0, canceled: 100, pending: 0 },
    })
    expect((await programState(issuer.programs.TEST)).grants).toHaveLength(100)
    const entries = (await auditLog(issuer.issuerId)).filter((e) => e.target.id === batchId)
    expect(entries.map((e) => e.action)).toEqual(['batch.commit', 'batch.cancel', 'batch.finish'])
  })

  it('cancels a batch whose every chunk is still queued: no row is granted', async () => {
    const issuer = await issuerWith()
    gate.hold(0)
    let batchId = ''
    try {
      const call = await commit(issuer, csvOfRows(150, 'queued'))
      batchId = call.body.id as string
      const asked = await cancel(admin, issuer, batchId)
      expect(asked.body).toMatchObject({
        status: 'canceling',
        counts: { granted: 0, pending: 150 },
      })
    } finally {
      gate.open()
    }
    const done = await finished(viewer, issuer, batchId)
    expect(done.body).toMatchObject({
      status: 'canceled',
      counts: { total: 150, granted: 0, failed: 0, canceled: 150, pending: 0 },
      rowsPerSecond: null,
    })
    expect((await programState(issuer.programs.TEST)).grants).toHaveLength(0)
  })
})
