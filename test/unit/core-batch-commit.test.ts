import { type BatchCommitInput, makeBatchCommit } from '../../functions/core/batch-commit'
import {
  BATCH_LIMITS,
  type BatchRecord,
  batchIdFor,
  batchRequestHash,
} from '../../functions/domain/batch'
import { checkBatchRows } from '../../functions/domain/batch-rows'
import {
  type DomainError,
  IdempotencyKeyReused,
  ProgramInactive,
  ServiceUnavailable,
} from '../../functions/domain/errors'
import { newId } from '../../functions/domain/ids'
import type { ProgramRecord } from '../../functions/domain/program'
import { FakeBatchStore, recordingQueue } from '../support/fake-batch-store'

/**
 * The commit of send to many (functions/core/batch-commit.ts) in process: the batch store's
 * commit methods in memory (test/support/fake-batch-store.ts), a queue that records the chunk
 * messages it takes, an injected clock. What a commit writes (rows in chunks, then the batch with
 * its audit entry, then a message per chunk), what a retried or racing commit answers, when the
 * chunks are sent again, and
 * that every refusal writes nothing. The same commit over HTTP and DynamoDB Local:
 * test/manage/batches.manage.test.ts.
 */

const START = Date.parse('2026-03-01T12:00:00.000Z')
const ISSUER = newId('issuer')
const ANN = { kind: 'person' as const, sub: 'sub-ann', email: 'ann@issuer.example' }

/** Four rows: two valid, one invalid (the e-mail), one a duplicate of row 2. */
const CSV = [
  'email,amount,name',
  'bob@example.com,5,Bob',
  'carol@example.com,7,',
  'not-an-email,3,',
  'BOB@example.com,5,Bobby',
].join('\n')

const programOf = (status: ProgramRecord['status'] = 'active'): ProgramRecord => ({
  programId: newId('program'),
  issuerId: ISSUER,
  mode: 'LIVE',
  name: 'Launch',
  status,
  pool: 1_000,
  issued: 0,
  shards: 4,
  createdAt: '2026-01-01T00:00:00.000Z',
})

const setup = () => {
  const batches = new FakeBatchStore()
  const worker = recordingQueue()
  let now = START
  const commit = makeBatchCommit({
    batches,
    queue: worker.queue,
    clock: () => now,
    // The waits between sends of refused messages: none here (runtime/retry.ts is tested on its own).
    sleep: async () => {},
  })
  const program = programOf()
  /** A commit of `csv` (CSV) with `key` and `reason` ('Launch bonus') to `program`. */
  const send = (
    options: Partial<Pick<BatchCommitInput, 'csv' | 'reason' | 'idempotencyKey' | 'program'>> & {
      requestId?: string
    } = {},
  ) => {
    const csv = options.csv ?? CSV
    const reason = 'reason' in options ? options.reason : 'Launch bonus'
    return commit({
      program: options.program ?? program,
      issuerId: ISSUER,
      actor: ANN,
      csv,
      reason,
      checked: checkBatchRows(csv, reason),
      idempotencyKey: options.idempotencyKey ?? 'batch-1',
      requestId: options.requestId ?? 'req-1',
    })
  }
  return {
    batches,
    worker,
    send,
    program,
    advance: (ms: number) => {
      now += ms
    },
  }
}

/** The refusal is of `type` with its `code`, wrote nothing and started no worker. */
const expectRefused = async (
  context: ReturnType<typeof setup>,
  work: Promise<unknown>,
  type: abstract new (...args: never[]) => DomainError,
  code: string,
) => {
  const before = context.batches.snapshot()
  const started = context.worker.started.length
  const error = await work.then(
    (result) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(result)}`)
    },
    (e: DomainError) => e,
  )
  expect(error).toBeInstanceOf(type)
  expect(error.code).toBe(code)
  expect(context.batches.snapshot()).toEqual(before)
  expect(context.worker.started).toHaveLength(started)
  return error
}

describe('a first commit', () => {
  it('stores the rows, then the batch with its audit entry, then sends each chunk once', async () => {
    const { batches, worker, send, program } = setup()
    const { batch, replayed, now } = await send()
    const batchId = batchIdFor(ISSUER, 'batch-1')
    const requestHash = batchRequestHash(program.programId, CSV, 'Launch bonus')
    expect(replayed).toBe(false)
    expect(now).toBe(START)
    expect(batch).toEqual({
      grantId: `batch#${batchId}`,
      itemType: 'grantBatch',
      batchId,
      issuerId: ISSUER,
      program: program.programId,
      mode: 'LIVE',
      reason: 'Launch bonus',
      idempotencyKey: 'batch-1',
      requestHash,
      chunkPrefix: requestHash.slice(0, 12),
      chunks: 1,
      createdBy: { sub: ANN.sub, email: ANN.email },
      submittedAt: new Date(START).toISOString(),
      programSlot: `${program.programId}#batches`,
      createdAt: new Date(START).toISOString(),
      total: 4,
      refused: 2,
      amount: 12,
      granted: 0,
      failed: 2,
      canceled: 0,
      chunksDone: 0,
      status: 'queued',
      updatedAt: new Date(START).toISOString(),
      enqueuedAt: new Date(START).toISOString(),
      requestId: 'req-1',
    } satisfies BatchRecord)
    expect(batches.batches()).toEqual([batch])
    const [chunk, ...more] = batches.chunks(batchId, batch.chunkPrefix)
    expect(more).toEqual([])
    expect(chunk?.results).toEqual([])
    expect(chunk?.rows.map((r) => [r.row, r.email, r.problem?.code])).toEqual([
      [2, 'bob@example.com', undefined],
      [3, 'carol@example.com', undefined],
      [4, 'not-an-email', 'validation_failed'],
      [5, 'BOB@example.com', 'duplicate_row'],
    ])
    expect(batches.state.audit).toEqual([
      expect.objectContaining({
        issuerId: ISSUER,
        actor: ANN,
        action: 'batch.commit',
        target: { type: 'batch', id: batchId },
        at: new Date(START).toISOString(),
        requestId: 'req-1',
        details: { programId: program.programId, rows: 4, valid: 2, refused: 2, amount: 12 },
      }),
    ])
    // The rows exist before the batch that names them; the chunks are sent after the commit point.
    expect(batches.calls).toEqual(['getBatch', 'putChunks', 'createBatch', 'markEnqueued'])
    expect(worker.started).toEqual([{ batchId, chunk: 0 }])
  })

  it('splits many rows into chunks of at most chunkRows, every row kept in order', async () => {
    const { batches, send, worker } = setup()
    const rows = 2 * BATCH_LIMITS.chunkRows + 50
    const csv = [
      'email,amount',
      ...Array.from({ length: rows }, (_, i) => `r${i}@example.com,1`),
    ].join('\n')
    const { batch } = await send({ csv })
    expect(batch).toMatchObject({ chunks: 3, total: rows, refused: 0, amount: rows })
    const chunks = batches.chunks(batch.batchId, batch.chunkPrefix)
    expect(chunks.map((c) => c.rows.length)).toEqual([100, 100, 50])
    expect(chunks.flatMap((c) => c.rows.map((r) => r.row))).toEqual(
      Array.from({ length: rows }, (_, i) => i + 2),
    )
    expect(worker.started.map((m) => m.chunk).sort()).toEqual([0, 1, 2])
  })

  it('sends 50,000 rows as 500 chunk messages, 10 a call', async () => {
    const { send, worker } = setup()
    const csv = [
      'email,amount',
      ...Array.from({ length: BATCH_LIMITS.maxRows }, (_, i) => `r${i}@example.com,1`),
    ].join('\n')
    const { batch } = await send({ csv })
    expect(batch.chunks).toBe(BATCH_LIMITS.maxRows / BATCH_LIMITS.chunkRows)
    expect(new Set(worker.started.map((m) => m.chunk)).size).toBe(batch.chunks)
    expect(worker.started).toHaveLength(batch.chunks)
  })
})

describe('the same Idempotency-Key again', () => {
  it('with the same CSV answers the same batch, replayed, and writes no second one', async () => {
    const { batches, send, advance } = setup()
    const first = await send()
    advance(10_000)
    const before = batches.snapshot()
    const again = await send({ requestId: 'req-2' })
    expect(again).toEqual({ batch: first.batch, replayed: true, now: START + 10_000 })
    expect(batches.snapshot()).toEqual(before)
    expect(batches.calls).toEqual([
      'getBatch',
      'putChunks',
      'createBatch',
      'markEnqueued',
      'getBatch',
    ])
  })

  type Left = Pick<BatchRecord, 'status'> & {
    enqueued: boolean
    /** How long before the retry the batch last moved. */
    idleMs: number
    deadLettered?: readonly number[]
  }
  /** The batch as the worker left it 20 minutes after the first commit; the chunks the retry sent. */
  const replayWhen = async (state: Left) => {
    const { batches, worker, send, advance } = setup()
    const { batch } = await send()
    advance(20 * 60_000)
    const stored = batches.state.items.get(batch.grantId) as BatchRecord
    const { enqueuedAt: _, ...rest } = stored
    batches.state.items.set(batch.grantId, {
      ...rest,
      ...(state.enqueued ? { enqueuedAt: stored.enqueuedAt } : {}),
      status: state.status,
      updatedAt: new Date(START + 20 * 60_000 - state.idleMs).toISOString(),
      ...(state.deadLettered ? { deadLettered: new Set(state.deadLettered) } : {}),
    } as BatchRecord)
    const again = await send()
    expect(again.replayed).toBe(true)
    expect(again.batch.status).toBe(state.status)
    expect(batches.batches()).toHaveLength(1)
    // The first sends were the first commit's.
    return worker.started.slice(1)
  }

  it.each([
    ['whose chunks were never all sent', { status: 'queued', enqueued: false, idleMs: 0 }],
    [
      'that stalled (nothing moved for 10 minutes)',
      { status: 'running', enqueued: true, idleMs: 10 * 60_000 + 1 },
    ],
    [
      'with a chunk in the dead letters',
      { status: 'running', enqueued: true, idleMs: 0, deadLettered: [0] },
    ],
  ] as const)('sends the chunks again for a batch %s', async (_, state) => {
    const started = await replayWhen(state)
    expect(started).toEqual([{ batchId: batchIdFor(ISSUER, 'batch-1'), chunk: 0 }])
  })

  it.each([
    ['running', { status: 'running', enqueued: true, idleMs: 10 * 60_000 }],
    ['done', { status: 'done', enqueued: true, idleMs: 20 * 60_000 }],
    ['canceled', { status: 'canceled', enqueued: false, idleMs: 20 * 60_000 }],
  ] as const)('does not send the chunks again for a batch %s', async (_, state) => {
    expect(await replayWhen(state)).toEqual([])
  })

  it.each([
    ['another CSV', { csv: `${CSV}\ndave@example.com,1,` }],
    ['another reason', { reason: 'Other reason' }],
    ['no reason', { reason: undefined }],
    ['another program', { program: programOf() }],
  ])('with %s is idempotency_key_reused, and nothing is written', async (_, change) => {
    const context = setup()
    await context.send()
    await expectRefused(
      context,
      context.send(change),
      IdempotencyKeyReused,
      'idempotency_key_reused',
    )
    expect(context.batches.calls).toEqual([
      'getBatch',
      'putChunks',
      'createBatch',
      'markEnqueued',
      'getBatch',
    ])
  })
})

describe('a program that is not open', () => {
  it.each(['paused', 'closed'] as const)(
    '(%s) is program_inactive for a new batch, and nothing is written',
    async (status) => {
      const context = setup()
      await expectRefused(
        context,
        context.send({ program: programOf(status) }),
        ProgramInactive,
        'program_inactive',
      )
      expect(context.batches.calls).toEqual(['getBatch'])
    },
  )

  it('a commit retried after the program was paused answers the batch it made', async () => {
    const { send, program, worker } = setup()
    const first = await send()
    const again = await send({ program: { ...program, status: 'paused' } })
    expect(again).toMatchObject({ replayed: true, batch: first.batch })
    expect(worker.started).toHaveLength(1)
  })
})

describe('racing commits', () => {
  it('a commit that finds the batch made meanwhile (createBatch: exists) answers that batch', async () => {
    const context = setup()
    const { batches, worker, send } = context
    // The other commit of the same key and CSV gets to the commit point first.
    const other = setup()
    const { batch: theirs } = await other.send({ program: context.program, requestId: 'req-other' })
    batches.beforeCreate = () => {
      batches.state.items.set(theirs.grantId, structuredClone(theirs))
      batches.state.audit.push(...structuredClone(other.batches.state.audit))
    }
    const { batch, replayed } = await send()
    expect(replayed).toBe(true)
    expect(batch).toEqual(theirs)
    expect(batch.requestId).toBe('req-other')
    expect(batches.batches()).toEqual([theirs])
    expect(batches.state.audit).toHaveLength(1)
    // The other commit sent the chunks (its batch says so): this one sends none.
    expect(theirs.enqueuedAt).toBeDefined()
    expect(worker.started).toEqual([])
  })

  it("with another CSV is idempotency_key_reused, and never writes over the first one's rows", async () => {
    const { batches, send } = setup()
    const first = await send()
    const rowsBefore = batches.chunks(first.batch.batchId, first.batch.chunkPrefix)
    // A racer that read no batch yet: it stores its rows, then fails at the commit point.
    batches.state.items.delete(first.batch.grantId)
    batches.beforeCreate = () => {
      batches.state.items.set(first.batch.grantId, structuredClone(first.batch))
    }
    const csv = `${CSV}\ndave@example.com,1,`
    await expect(send({ csv })).rejects.toBeInstanceOf(IdempotencyKeyReused)
    expect(batches.batches()).toEqual([first.batch])
    expect(batches.chunks(first.batch.batchId, first.batch.chunkPrefix)).toEqual(rowsBefore)
    expect(batches.state.audit).toHaveLength(1)
  })

  it('two at once with the same key and CSV make one batch and one audit entry', async () => {
    const { batches, send } = setup()
    const [a, b] = await Promise.all([send({ requestId: 'req-a' }), send({ requestId: 'req-b' })])
    expect([a.replayed, b.replayed].sort()).toEqual([false, true])
    // The replay may read the batch before the first marks its chunks sent, and send them too:
    // the worker takes a chunk twice as once.
    const { enqueuedAt: _a, ...first } = a.batch
    const { enqueuedAt: _b, ...second } = b.batch
    expect(first).toEqual(second)
    expect(batches.batches()).toHaveLength(1)
    expect(batches.state.audit).toHaveLength(1)
    expect(batches.calls.filter((c) => c === 'createBatch')).toHaveLength(2)
  })
})

describe('failures', () => {
  it('a queue that takes no message fails the commit (503); the same commit retried sends them', async () => {
    const { batches, worker, send } = setup()
    worker.failCalls(4)
    await expect(send()).rejects.toThrow(/the queue took 0 of 1 chunk messages/)
    // The batch was committed, but not marked as sent: the retry answers it and sends its chunks.
    const [stored] = batches.batches()
    expect(stored).toBeDefined()
    expect(stored?.enqueuedAt).toBeUndefined()
    expect(worker.started).toEqual([])
    const again = await send()
    expect(again).toMatchObject({ replayed: true, batch: stored })
    expect(worker.started).toEqual([{ batchId: stored?.batchId, chunk: 0 }])
    expect(batches.batch(stored?.batchId as string)?.enqueuedAt).toBeDefined()
  })

  it('a commit point that fails writes no batch; the retry commits it once', async () => {
    const { batches, worker, send } = setup()
    batches.failNext('createBatch', new ServiceUnavailable())
    await expect(send()).rejects.toBeInstanceOf(ServiceUnavailable)
    expect(batches.batches()).toEqual([])
    expect(batches.state.audit).toEqual([])
    expect(worker.started).toEqual([])
    const { replayed, batch } = await send()
    expect(replayed).toBe(false)
    expect(batches.batches()).toEqual([batch])
    expect(batches.state.audit).toHaveLength(1)
    expect(worker.started).toEqual([{ batchId: batch.batchId, chunk: 0 }])
  })
})
