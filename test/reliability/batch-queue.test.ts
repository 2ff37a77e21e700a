import { randomUUID } from 'node:crypto'
import { UpdateCommand } from '@aws-sdk/lib-dynamodb'
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda'
import { BATCH_WORK, consumerById, GRANT_BATCH_ROWS_QUEUE } from '../../functions/consumers'
import { AccessCache } from '../../functions/core/access-cache'
import { makeBatchCommit } from '../../functions/core/batch-commit'
import {
  makeBatchRowsWorker,
  WORKER_BUDGET,
  type WorkerContext,
} from '../../functions/core/grant-batch-worker'
import { type GrantTokensInput, makeGrantTokens } from '../../functions/core/grant-tokens'
import { auditEntry } from '../../functions/domain/audit-entry'
import {
  BATCH_LIMITS,
  type BatchRecord,
  chunkKey,
  type RowResult,
} from '../../functions/domain/batch'
import { checkBatchRows } from '../../functions/domain/batch-rows'
import type { GrantRecord } from '../../functions/domain/grant'
import { toBatchView } from '../../functions/http/batch-view'
import { batchFinishedMail } from '../../functions/mail/batch-finished-mail'
import type { Mailer, OutgoingMail } from '../../functions/mail/mailer'
import type { QueueSender } from '../../functions/runtime/queue-sender'
import { DynamoDbBatchListing } from '../../functions/stores/batch-listing.dynamodb'
import { DynamoDbBatchStore } from '../../functions/stores/batches.dynamodb'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import { makeBatchWorkerHandler } from '../../functions/wiring/grant-batch-worker.consumer'
import {
  LocalQueue,
  localQueueSender,
  type PollOutcome,
  pollOnce,
  type SqsBatchHandler,
} from '../../local/queue'
import { auditLog } from '../manage/grants-support'
import { adminStore, type Issuer, newIssuer, programState } from '../support/api'
import { config, documentClient, runtime, TestClock, wallClock } from '../support/runtime'

/**
 * Send to many when SQS misbehaves, as SQS may: the real worker (functions/core/grant-batch-worker.ts)
 * over DynamoDB Local, fed by a local queue with GrantBatchRows' own spec (visibility timeout,
 * redelivery, maxReceiveCount, dead letters), the batches committed by the real commit
 * (makeBatchCommit over the real batch store). The queue's time is a test clock: a delivery that
 * never answers comes back when the test moves it past the visibility timeout, as SQS's would.
 *
 * The contract: every message may be delivered twice, at once, or after its worker died, and every
 * row is still granted exactly once, counted once, the batch finished once with one audit entry and
 * one e-mail; a message no worker can handle ends in the dead letters and the batch shows it; a
 * cancel stops the rows not yet tried; a pool that runs out mid-batch stays exact.
 *
 * The batches are committed in chunks of CHUNK_ROWS rows, not the service's 100: what these cases
 * turn on is messages and chunks (several, one of them partial), so a tenth of the rows shows the
 * same, in a tenth of the grants. A case that turns on how many rows of a chunk run before the
 * worker looks again says so and keeps the service's chunks.
 */
const CHUNK_ROWS = 10

const batches = new DynamoDbBatchStore(documentClient, config.tables)
const listing = new DynamoDbBatchListing(documentClient, config.tables)
const committer = {
  kind: 'person' as const,
  sub: `sub-${randomUUID()}`,
  email: 'committer@example.com',
}
const VISIBILITY_MS = GRANT_BATCH_ROWS_QUEUE.visibilityTimeoutSeconds * 1000
const WORKER = consumerById('GrantBatchWorker')
/** One chunk message an invocation, as the event source mapping is set up. */
const BATCH_SIZE = WORKER.trigger.kind === 'queue' ? WORKER.trigger.batchSize : 1
const TIMEOUT_MS = WORKER.timeoutSeconds * 1000

/**
 * GrantBatchRows with its spec, on the clock of everything this file builds (the worker's too): the
 * test moves it past a visibility timeout and the worker sees that time pass as well.
 */
const newQueue = () => {
  const clock: TestClock = wallClock
  return { clock, queue: new LocalQueue(GRANT_BATCH_ROWS_QUEUE, clock) }
}

/** A mailer that keeps what it sent; its first `failing` sends fail (SES throttled, say). */
const recordingMailer = (failing = 0) => {
  const sent: OutgoingMail[] = []
  let failures = 0
  const mailer: Mailer = {
    async send(mail) {
      if (failures < failing) {
        failures += 1
        throw new Error('Maximum sending rate exceeded')
      }
      sent.push(mail)
      return 'sent'
    },
  }
  return { mailer, sent, failures: () => failures }
}

/** What Lambda gives one invocation: the function's timeout, on `now` (real time by default). */
const invocation = (now: () => number = Date.now): WorkerContext => {
  const end = now() + TIMEOUT_MS
  return {
    awsRequestId: `inv-${randomUUID()}`,
    getRemainingTimeInMillis: () => Math.max(0, end - now()),
  }
}

type Worker = (event: SQSEvent, context: WorkerContext) => Promise<SQSBatchResponse>
/** The worker as the event source mapping invokes it: one invocation per event. */
const asLambda =
  (worker: Worker): SqsBatchHandler =>
  (event) =>
    worker(event, invocation())

/** The grant API's own use case, as the worker's factory builds it. */
const grantStore = new DynamoDbGrantStore(documentClient, config.tables)
const realGrantTokens = makeGrantTokens({
  store: grantStore,
  access: new AccessCache(grantStore, { now: () => runtime.monotonic.now() }),
  clock: () => runtime.clock.now(),
})

/**
 * The worker with another grant step (to kill or poison it), e-mailing through `mailer`; `now`,
 * the clock its delivery's budget and its looks for a cancel are timed by (real time by default).
 */
const workerWith = (
  grantTokens: typeof realGrantTokens,
  mailer: Mailer = recordingMailer().mailer,
  now?: () => number,
): Worker =>
  makeBatchRowsWorker({
    batches,
    grantTokens,
    notifyFinished: (batch, signal) => mailer.send(batchFinishedMail(batch, undefined), { signal }),
    clock: () => runtime.clock.now(),
    ...(now === undefined ? {} : { now }),
  })

/**
 * Lambda's event source mapping until the queue is empty: `maxConcurrency` polls at a time, each
 * of `batchSize` messages; when every message left is in flight, the queue's clock is moved past
 * the visibility timeout so they come back (or go to the dead letters), as time would do.
 */
const drain = async (
  { queue, clock }: ReturnType<typeof newQueue>,
  handler: SqsBatchHandler,
  concurrency: number = BATCH_WORK.maxConcurrency,
) => {
  const polls: PollOutcome[] = []
  for (let round = 0; round < 500; round++) {
    const outcomes = await Promise.all(
      Array.from({ length: concurrency }, () => pollOnce(queue, handler, BATCH_SIZE)),
    )
    polls.push(...outcomes.filter((o) => o.received > 0))
    if (outcomes.some((o) => o.received > 0)) continue
    const { visible, inFlight } = queue.counts()
    if (visible > 0) continue
    if (inFlight === 0) return polls
    clock.advance(VISIBILITY_MS + 1)
  }
  throw new Error(`the queue never emptied: ${JSON.stringify(queue.counts())}`)
}

const csvOf = (rows: readonly (readonly (string | number)[])[]) =>
  `${['email,amount', ...rows.map((r) => r.join(','))].join('\n')}\n`

/** `count` valid rows (amounts 1, 2, 3 in turn, times `unit`) with these extra lines after them. */
const rowsCsv = (prefix: string, count: number, extra: string[] = [], unit = 1) =>
  csvOf([
    ...Array.from({ length: count }, (_, i) => [`${prefix}${i}@example.com`, ((i % 3) + 1) * unit]),
    ...extra.map((line) => line.split(',')),
  ])

/** The batch committed by the real commit in chunks of `chunkRows`, its messages sent through `sender`. */
const commit = async (
  issuer: Issuer,
  csv: string,
  sender: QueueSender,
  key: string = randomUUID(),
  chunkRows = CHUNK_ROWS,
) => {
  const program = await adminStore.getProgram(issuer.programs.TEST)
  if (!program) throw new Error('no program')
  const checked = checkBatchRows(csv, 'Reliability')
  const { batch } = await makeBatchCommit({
    batches,
    queue: sender,
    clock: () => wallClock.now(),
    chunkRows,
  })({
    program,
    issuerId: issuer.issuerId,
    actor: committer,
    csv,
    reason: 'Reliability',
    checked,
    idempotencyKey: key,
    requestId: `req-${randomUUID()}`,
  })
  return { batch, checked }
}

const readBatch = async (batchId: string) => {
  const batch = await batches.getBatch(batchId)
  if (!batch) throw new Error(`no batch ${batchId}`)
  return batch
}

/** Every row's result, in order, from the chunks as the worker committed them. */
const rowResults = async (batch: BatchRecord) =>
  (await batches.getChunks(batch, 0, batch.chunks)).flatMap((chunk) =>
    chunk.rows.map((row, k) => ({ row, result: chunk.results[k] as RowResult | undefined })),
  )

/** The batch's grants in DynamoDB, by row: each row's grants. */
const grantsByRow = async (programId: string, batchId: string) => {
  const byRow = new Map<number, GrantRecord[]>()
  for (const grant of (await programState(programId)).grants) {
    if (grant.batch?.batchId !== batchId) continue
    byRow.set(grant.batch.row, [...(byRow.get(grant.batch.row) ?? []), grant])
  }
  return byRow
}

const finishEntries = async (issuerId: string, batchId: string) =>
  (await auditLog(issuerId)).filter((e) => e.target.id === batchId && e.action === 'batch.finish')

/**
 * What every finished batch must show: each row granted has exactly one grant (the one its result
 * names), no other row has any, the program's issued is their amounts' sum, the counts add up.
 */
const expectExact = async (issuer: Issuer, batchId: string) => {
  const batch = await readBatch(batchId)
  const results = await rowResults(batch)
  const byRow = await grantsByRow(issuer.programs.TEST, batchId)
  const granted = results.filter((r) => r.result?.status === 'granted')
  for (const { row, result } of results) {
    const grants = byRow.get(row.row) ?? []
    if (result?.status === 'granted') {
      expect(grants.map((g) => g.grantId)).toEqual([result.grantId])
      expect(grants[0]?.amount).toBe(row.amount)
    } else {
      expect([row.row, grants]).toEqual([row.row, []])
    }
  }
  expect(byRow.size).toBe(granted.length)
  const count = (status: RowResult['status']) =>
    results.filter((r) => r.result?.status === status).length
  expect({
    granted: batch.granted,
    failed: batch.failed,
    canceled: batch.canceled ?? 0,
    total: batch.total,
  }).toEqual({
    granted: count('granted'),
    failed: count('failed'),
    canceled: count('canceled'),
    total: results.length,
  })
  expect(batch.granted + batch.failed + (batch.canceled ?? 0)).toBe(batch.total)
  const { issued } = await programState(issuer.programs.TEST)
  expect(issued).toBe(granted.reduce((sum, r) => sum + Number(r.row.amount), 0))
  return { batch, results, byRow, issued }
}

describe('a message delivered more than once', () => {
  it('grants every row exactly once when each chunk message is sent twice and each delivery runs twice at the same moment; one finish, one audit entry, one e-mail', async () => {
    const issuer = await newIssuer()
    const rig = newQueue()
    const twice: QueueSender = {
      async sendBatch(entries) {
        rig.queue.sendBatch(entries)
        rig.queue.sendBatch(entries)
        return { failed: [] }
      },
    }
    // 18 valid rows and 2 refused at commit: two chunks, so two finishers race as well. (Every
    // row is tried by four invocations, one DynamoDB Local transaction each.)
    const csv = rowsCsv('twice', 18, ['not-an-email,1', 'zero@example.com,0'])
    const { batch, checked } = await commit(issuer, csv, twice)
    expect(batch.chunks).toBe(2)
    expect(rig.queue.counts().visible).toBe(4)

    const { mailer, sent } = recordingMailer()
    const worker = makeBatchWorkerHandler(runtime, { mailer })
    // Two invocations per delivery, racing: their answers merged (a message either one hands back
    // comes again).
    const racing: SqsBatchHandler = async (event) => {
      const answers = await Promise.all([worker(event, invocation()), worker(event, invocation())])
      return { batchItemFailures: answers.flatMap((a) => a.batchItemFailures) }
    }
    await drain(rig, racing)

    const { batch: done, byRow, issued } = await expectExact(issuer, batch.batchId)
    expect(done.status).toBe('done')
    expect(toBatchView(done, wallClock.now())).toMatchObject({
      status: 'done',
      counts: { total: 20, granted: 18, failed: 2, canceled: 0, pending: 0 },
      deadLetteredChunks: 0,
    })
    expect(byRow.size).toBe(18)
    expect(issued).toBe(checked.amount)
    expect(await finishEntries(issuer.issuerId, batch.batchId)).toHaveLength(1)
    expect(sent.map((m) => [m.to, m.subject])).toEqual([
      [committer.email, 'Batch done: 18 of 20 rows granted'],
    ])
    expect(rig.queue.counts()).toEqual({ visible: 0, inFlight: 0, delayed: 0, deadLetters: 0 })

    // A retried commit of the finished batch sends nothing and changes nothing.
    await commit(issuer, csv, twice, done.idempotencyKey)
    expect(rig.queue.counts().visible).toBe(0)
  })
})

describe('the finish e-mail', () => {
  it('is sent again by the redelivered last message when the finishing delivery could not send it, and then once only', async () => {
    const issuer = await newIssuer()
    const rig = newQueue()
    const { batch } = await commit(issuer, rowsCsv('mailfail', 5), localQueueSender(rig.queue))
    const { mailer, sent, failures } = recordingMailer(1)
    const worker = asLambda(makeBatchWorkerHandler(runtime, { mailer }))
    const polls = await drain(rig, worker)
    // Finished, mail failed, handed back; after the visibility timeout the committer is told.
    expect(polls.map((p) => [p.deleted, p.failed])).toEqual([
      [0, 1],
      [1, 0],
    ])
    expect(failures()).toBe(1)
    expect(sent.map((m) => [m.to, m.subject])).toEqual([
      [committer.email, 'Batch done: 5 of 5 rows granted'],
    ])
    expect((await readBatch(batch.batchId)).notifiedAt).toEqual(expect.any(String))
    expect(await finishEntries(issuer.issuerId, batch.batchId)).toHaveLength(1)
    // A late duplicate of the message tells nobody again.
    rig.queue.send(JSON.stringify({ batchId: batch.batchId, chunk: 0 }))
    await drain(rig, worker)
    expect(sent).toHaveLength(1)
  })
})

describe('a worker that dies mid-chunk', () => {
  it('leaves its message on the queue; redelivered after the visibility timeout it completes the batch exactly once, and the dead run waking late changes nothing', async () => {
    const issuer = await newIssuer()
    const rig = newQueue()
    const { batch } = await commit(issuer, rowsCsv('killed', 25), localQueueSender(rig.queue))

    // The first delivery's process "dies" after 4 grants: every later grant call hangs (frozen,
    // no answer, no delete), until the test wakes it at the end.
    let calls = 0
    let reached: () => void = () => {}
    const dying = new Promise<void>((resolve) => {
      reached = resolve
    })
    let wake: () => void = () => {}
    const woken = new Promise<void>((resolve) => {
      wake = resolve
    })
    let answered = 0
    const dead = workerWith(async (input: GrantTokensInput) => {
      calls += 1
      if (calls > 4) await woken
      const result = await realGrantTokens(input)
      answered += 1
      if (answered === 4) reached()
      return result
    })
    // One message by hand (the test steps the poller; the event source mapping would take BATCH_SIZE).
    const zombie = pollOnce(rig.queue, asLambda(dead), 1)
    await dying
    expect(rig.queue.counts()).toMatchObject({ visible: 2, inFlight: 1 })
    // 4 rows granted, none committed: the batch knows nothing of them yet.
    expect((await grantsByRow(issuer.programs.TEST, batch.batchId)).size).toBe(4)
    expect((await readBatch(batch.batchId)).granted).toBe(0)

    // A healthy worker takes the other chunks, then (the clock past the visibility timeout) the
    // dead one's: its 4 granted rows are replays of the same grants.
    const { mailer, sent } = recordingMailer()
    const polls = await drain(rig, asLambda(makeBatchWorkerHandler(runtime, { mailer })))
    expect(polls.length).toBeGreaterThan(0)
    expect(polls.filter((p) => p.failed > 0)).toEqual([])
    const after = await expectExact(issuer, batch.batchId)
    expect(after.batch.status).toBe('done')
    expect(after.batch.granted).toBe(25)
    expect(after.byRow.size).toBe(25)
    expect(sent).toHaveLength(1)

    // The dead run wakes: its grants replay, its commit finds the chunk done, its delete is stale.
    wake()
    const late = await zombie
    expect(late).toMatchObject({ received: 1, deleted: 0 })
    const still = await expectExact(issuer, batch.batchId)
    expect(still.batch).toMatchObject({ status: 'done', granted: 25, failed: 0 })
    expect(still.issued).toBe(after.issued)
    expect(await finishEntries(issuer.issuerId, batch.batchId)).toHaveLength(1)
    expect(sent).toHaveLength(1)
    expect(rig.queue.counts()).toEqual({ visible: 0, inFlight: 0, delayed: 0, deadLetters: 0 })
  })
})

describe('a poison message', () => {
  it('fails each of its maxReceiveCount deliveries, lands in the dead letters, and the batch shows the chunk stalled while the others finished', async () => {
    const issuer = await newIssuer()
    const rig = newQueue()
    // Chunk 1's 6th row crashes the grant step every time (not a refusal: a bug, a bad library).
    const { batch } = await commit(issuer, rowsCsv('poison', 30), localQueueSender(rig.queue))
    const poisoned = 'poison15@example.com'
    let poisonCalls = 0
    const worker = workerWith(async (input) => {
      if ((input.body as { recipient: { email: string } }).recipient.email === poisoned) {
        poisonCalls += 1
        throw new TypeError('Cannot read properties of undefined')
      }
      return realGrantTokens(input)
    })
    await drain(rig, asLambda(worker))

    expect(poisonCalls).toBe(GRANT_BATCH_ROWS_QUEUE.maxReceiveCount)
    expect(rig.queue.deadLetters.map((m) => [JSON.parse(m.body), m.receiveCount])).toEqual([
      [{ batchId: batch.batchId, chunk: 1 }, GRANT_BATCH_ROWS_QUEUE.maxReceiveCount],
    ])
    const stuck = await readBatch(batch.batchId)
    expect([...(stuck.deadLettered ?? [])]).toEqual([1])
    expect(toBatchView(stuck, wallClock.now())).toMatchObject({
      status: 'stalled',
      stalled: true,
      deadLetteredChunks: 1,
      // Chunks 0 and 2, and chunk 1's rows before the poisoned one.
      counts: { total: 30, granted: 25, failed: 0, canceled: 0, pending: 5 },
    })
    const results = await rowResults(stuck)
    expect(results.filter((r) => r.result?.status === 'granted')).toHaveLength(25)
    expect(results.slice(15).filter((r) => r.result === undefined)).toHaveLength(5)
    // No row twice, whatever ran; the poisoned row never granted.
    const byRow = await grantsByRow(issuer.programs.TEST, batch.batchId)
    for (const grants of byRow.values()) expect(grants).toHaveLength(1)
    expect(results.find((r) => r.row.email === poisoned)?.result).toBeUndefined()
    expect(byRow.get(results.find((r) => r.row.email === poisoned)?.row.row ?? 0)).toBeUndefined()
    expect(await finishEntries(issuer.issuerId, batch.batchId)).toHaveLength(0)

    // Once the bug is fixed, the dead letters redriven: the chunk finishes and the mark goes.
    for (const message of rig.queue.deadLetters.splice(0)) rig.queue.send(message.body)
    await drain(rig, asLambda(makeBatchWorkerHandler(runtime)))
    const { batch: done } = await expectExact(issuer, batch.batchId)
    expect(done.status).toBe('done')
    expect(done.granted).toBe(30)
    expect(done.deadLettered?.size ?? 0).toBe(0)
  })

  it('sends a chunk whose stored item is corrupt to the dead letters without counting anything for it', async () => {
    const issuer = await newIssuer()
    const rig = newQueue()
    const { batch } = await commit(issuer, rowsCsv('corrupt', 15), localQueueSender(rig.queue))
    // Chunk 1's rows are no longer a list (a bad hand edit, a bad migration).
    await documentClient.send(
      new UpdateCommand({
        TableName: config.tables.grants,
        Key: { grantId: chunkKey(batch.batchId, batch.chunkPrefix, 1) },
        UpdateExpression: 'SET #rows = :garbage',
        ExpressionAttributeNames: { '#rows': 'rows' },
        ExpressionAttributeValues: { ':garbage': 'not rows' },
      }),
    )
    await drain(rig, asLambda(makeBatchWorkerHandler(runtime)))

    expect(rig.queue.deadLetters.map((m) => JSON.parse(m.body))).toEqual([
      { batchId: batch.batchId, chunk: 1 },
    ])
    const stuck = await readBatch(batch.batchId)
    expect(toBatchView(stuck, wallClock.now())).toMatchObject({
      status: 'stalled',
      deadLetteredChunks: 1,
      counts: { total: 15, granted: 10, failed: 0, canceled: 0, pending: 5 },
    })
    expect(stuck.chunksDone).toBe(1)
    expect((await grantsByRow(issuer.programs.TEST, batch.batchId)).size).toBe(10)
  })

  it('sends a message that is not a chunk message (not JSON, no batch, no such chunk) to the dead letters', async () => {
    const issuer = await newIssuer()
    const rig = newQueue()
    const { batch } = await commit(issuer, rowsCsv('nonsense', 10), localQueueSender(rig.queue))
    const bodies = [
      'not json {',
      JSON.stringify({ hello: 'world' }),
      JSON.stringify({ batchId: batch.batchId, chunk: 7 }),
    ]
    for (const body of bodies) rig.queue.send(body)
    await drain(rig, asLambda(makeBatchWorkerHandler(runtime)))

    expect(rig.queue.deadLetters.map((m) => [m.body, m.receiveCount])).toEqual(
      bodies.map((body) => [body, GRANT_BATCH_ROWS_QUEUE.maxReceiveCount]),
    )
    // The batch's own message went through; the nonsense marked nothing on it.
    const { batch: done } = await expectExact(issuer, batch.batchId)
    expect(done).toMatchObject({ status: 'done', granted: 10 })
    expect(done.deadLettered?.size ?? 0).toBe(0)
  })
})

describe('cancel', () => {
  it('stops the rows not yet tried: they end canceled and never granted, granted rows stay, the batch ends canceled and its e-mail says so', async () => {
    const issuer = await newIssuer()
    const rig = newQueue()
    const { batch } = await commit(issuer, rowsCsv('cancel', 40), localQueueSender(rig.queue))
    expect(batch.chunks).toBe(4)
    const { mailer, sent } = recordingMailer()
    const worker = asLambda(makeBatchWorkerHandler(runtime, { mailer }))

    // The first chunk runs; then the issuer cancels (the cancel route's store call).
    expect(await pollOnce(rig.queue, worker, 1)).toMatchObject({ deleted: 1 })
    const now = wallClock.now()
    const canceled = await listing.requestCancel({
      batchId: batch.batchId,
      issuerId: issuer.issuerId,
      programId: issuer.programs.TEST,
      actor: committer,
      now,
      audit: auditEntry({
        issuerId: issuer.issuerId,
        actor: committer,
        action: 'batch.cancel',
        target: { type: 'batch', id: batch.batchId },
        now,
      }),
    })
    expect(canceled.outcome).toBe('done')
    expect(toBatchView(await readBatch(batch.batchId), wallClock.now()).status).toBe('canceling')

    // The rest, with every message delivered twice.
    for (const message of rig.queue.receive(10, 0)) rig.queue.send(message.body)
    await drain(rig, worker)

    const { batch: done, results, byRow } = await expectExact(issuer, batch.batchId)
    expect(done.status).toBe('canceled')
    expect(toBatchView(done, wallClock.now())).toMatchObject({
      status: 'canceled',
      counts: { total: 40, granted: 10, failed: 0, canceled: 30, pending: 0 },
    })
    expect(results.slice(0, 10).every((r) => r.result?.status === 'granted')).toBe(true)
    expect(results.slice(10).every((r) => r.result?.status === 'canceled')).toBe(true)
    expect(byRow.size).toBe(10)
    const finish = await finishEntries(issuer.issuerId, batch.batchId)
    expect(finish.map((e) => e.details)).toEqual([
      expect.objectContaining({ status: 'canceled', granted: 10, canceled: 30 }),
    ])
    expect(sent.map((m) => m.subject)).toEqual(['Batch canceled: 10 of 40 rows granted'])
    expect(sent[0]?.text).toContain('30 not granted: canceled before they were tried')
  })

  it('stops a chunk already running: rows started keep their grant, the others end canceled', async () => {
    const issuer = await newIssuer()
    const rig = newQueue()
    // The service's chunks of 100: the cancel must land while a chunk still has rows to start
    // (the worker runs 16 at a time), which chunks of 10 would not leave.
    const { batch } = await commit(
      issuer,
      rowsCsv('midcancel', 300),
      localQueueSender(rig.queue),
      randomUUID(),
      BATCH_LIMITS.chunkRows,
    )
    const { mailer, sent } = recordingMailer()
    // The 20th grant asks for the cancel (the cancel route's store call) while the chunk runs.
    // The worker's own clock stands still but for the slow rows below: when it looks for the
    // cancel depends on rows, never on how fast the machine is.
    const budget = new TestClock(() => Date.now())
    budget.freeze()
    let calls = 0
    const worker = workerWith(
      async (input) => {
        calls += 1
        if (calls === 20) {
          const now = wallClock.now()
          await listing.requestCancel({
            batchId: batch.batchId,
            issuerId: issuer.issuerId,
            programId: issuer.programs.TEST,
            actor: committer,
            now,
            audit: auditEntry({
              issuerId: issuer.issuerId,
              actor: committer,
              action: 'batch.cancel',
              target: { type: 'batch', id: batch.batchId },
              now,
            }),
          })
        }
        // Every row after it is slow (half the worker's look-for-a-cancel interval, on its clock):
        // the chunk outlasts the worker's next look for a cancel.
        if (calls > 20) budget.advance(WORKER_BUDGET.cancelCheckMs / 2)
        return realGrantTokens(input)
      },
      mailer,
      budget.now,
    )
    await drain(rig, (event) => worker(event, invocation(budget.now)), 1)

    const { batch: done, results } = await expectExact(issuer, batch.batchId)
    expect(done.status).toBe('canceled')
    expect(done.granted).toBeGreaterThanOrEqual(20)
    // One invocation takes BATCH_SIZE (2) chunks side by side: the third is never started.
    expect(done.granted).toBeLessThan(200)
    expect(done.granted + (done.canceled ?? 0)).toBe(300)
    expect(results.slice(200).every((r) => r.result?.status === 'canceled')).toBe(true)
    expect(sent.map((m) => m.subject)).toEqual([
      `Batch canceled: ${done.granted} of 300 rows granted`,
    ])
  })
})

describe('a pool that runs out mid-batch', () => {
  it('grants every row that fits and fails the others pool_exhausted, with rows in parallel and every message twice: issued never over the pool, nothing left that a failed row needed', async () => {
    const pool = 300
    const issuer = await newIssuer({ pool })
    const rig = newQueue()
    const twice: QueueSender = {
      async sendBatch(entries) {
        rig.queue.sendBatch(entries)
        rig.queue.sendBatch(entries)
        return { failed: [] }
      },
    }
    // 25 rows of 10, 20, 30 in turn: 490 asked of a pool of 300 (three shards of 100).
    const { batch, checked } = await commit(issuer, rowsCsv('pool', 25, [], 10), twice)
    expect(checked.amount).toBe(490)
    await drain(rig, asLambda(makeBatchWorkerHandler(runtime)))

    const { batch: done, results, issued } = await expectExact(issuer, batch.batchId)
    expect(done.status).toBe('done')
    const failed = results.filter((r) => r.result?.status === 'failed')
    expect(failed.length).toBeGreaterThan(0)
    expect(new Set(failed.map((r) => (r.result as { code: string }).code))).toEqual(
      new Set(['pool_exhausted']),
    )
    expect(done.granted + done.failed).toBe(25)
    const { program } = await programState(issuer.programs.TEST)
    const remaining = Number(program?.remaining)
    expect(issued + remaining).toBe(pool)
    expect(issued).toBeLessThanOrEqual(pool)
    // Exact: every failed row needed more than was left at the end (the pool only shrinks).
    expect(remaining).toBeLessThan(Math.min(...failed.map((r) => Number(r.row.amount))))
  })
})
