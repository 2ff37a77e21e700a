/**
 * Send to many on DynamoDB Local, side by side in one run (issue 20): the same 5,000 rows
 *   (a) through the worker of 264cf9e, frozen in bench/frozen-batch-worker (one run holds the batch
 *       by a lease and grants its rows one at a time, handing over to itself in-process, as npm
 *       start ran it),
 *   (b) through today's worker (functions/core/grant-batch-worker.ts) on the local GrantBatchRows
 *       queue, run by the local pipeline as npm start runs it (local/pipeline.ts: GrantBatchWorker's
 *       batchSize and maxConcurrency, local/consumer-factories.ts's handler),
 *   (c) as plain grants: 5,000 calls of the same grant use case (makeGrantTokens, as a member, as
 *       the worker calls it) at the worker's total concurrency (BATCH_WORK.maxConcurrency x
 *       rowsInParallel), no batch at all: what DynamoDB Local itself sustains for grants here.
 * Each side has a fresh program with room for every row and its own batch, created by today's
 * commit (makeBatchCommit, so both read the same chunks through the same store); the clock runs
 * from handing the work over (the invoke, the chunk messages) to the batch's last row. Each side
 * must be exact (every row granted once: program issued = the rows' sum, one grant item per row,
 * distinct grant ids in the results) or its row fails. Rounds alternate the sides (a b c a b c) so
 * that a busy moment of the shared machine falls on all of them. DynamoDB Local runs transactions
 * one at a time: these are local figures, not AWS's (the contention model has those: batch-model).
 */
import { buildRuntime, type Runtime } from '../../functions/composition'
import { BATCH_WORK } from '../../functions/consumers'
import { AccessCache } from '../../functions/core/access-cache'
import { makeBatchCommit } from '../../functions/core/batch-commit'
import { makeGrantTokens } from '../../functions/core/grant-tokens'
import { type BatchRecord, FINAL_BATCH_STATUSES } from '../../functions/domain/batch'
import { checkBatchRows } from '../../functions/domain/batch-rows'
import { DomainError } from '../../functions/domain/errors'
import type { QueueSender } from '../../functions/runtime/queue-sender'
import { retrying } from '../../functions/runtime/retry'
import * as RETRY from '../../functions/runtime/retry-policies'
import { DynamoDbBatchStore } from '../../functions/stores/batches.dynamodb'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import { scanAll } from '../../functions/stores/paging'
import { transientKind } from '../../functions/stores/store-errors'
import { LOCAL_CONSUMERS } from '../../local/consumer-factories'
import { startLocalPipeline } from '../../local/pipeline'
import { makeFrozenBatchWorkerHandler } from '../frozen-batch-worker/grant-batch-worker'
import { LeaseBatchStore } from '../frozen-batch-worker/lease-batch-store'
import { inProcessInvoker, localWorkersIdle } from '../frozen-batch-worker/worker-invoker'
import type { Benchmark } from '../support/benchmark'
import type { Database } from '../support/context'
import { type Row, round } from '../support/report'

const ROWS = 5_000
const ROUNDS = 2
/** Amounts 1 to 3, so that "issued = the rows' sum" is not just a count. */
const amountOf = (i: number) => 1 + (i % 3)
const CONCURRENCY = BATCH_WORK.maxConcurrency * BATCH_WORK.rowsInParallel
/** A side that has not finished in this long has failed (the frozen one needs about 30 s). */
const GIVE_UP_MS = 10 * 60_000

type Side = 'frozen' | 'queue' | 'grants'
type SideRun = {
  rows: number
  seconds: number
  rowsPerSecond: number
  exact: boolean
  issued: number
  expected: number
  grantItems: number
  distinctGrantIds: number
  failedRows: number
}

const SIDES: Side[] = ['frozen', 'queue', 'grants']

export const benchmark: Benchmark = {
  title: `send to many: ${ROWS.toLocaleString('en')} rows, frozen worker vs queue worker vs plain grants (DynamoDB Local)`,
  resultPath: ['batchLocal'],
  run: async (bench) => {
    const d = await bench.database()
    const runtime = buildRuntime(d.config, {
      dynamodb: d.dynamodb,
      documentClient: d.documentClient,
    })
    const pipeline = await startLocalPipeline({
      runtime,
      stream: false,
      consumers: { GrantBatchWorker: LOCAL_CONSUMERS.GrantBatchWorker },
      onError: (message) => bench.log(`batch-local pipeline: ${message}`),
    })
    const runs: Record<Side, SideRun[]> = { frozen: [], queue: [], grants: [] }
    try {
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of SIDES) {
          const run = await runSide(side, d, runtime, pipeline.senders.GrantBatchRows, round)
          bench.log(
            `  ${side} round ${round + 1}: ${round2(run.rowsPerSecond)} rows/s (${run.seconds} s), exact ${run.exact}`,
          )
          runs[side].push(run)
        }
      }
    } finally {
      await pipeline.stop()
    }

    // Each side's rate over all its rounds: every row over every second.
    const rate = (side: Side) => {
      const r = runs[side]
      return r.reduce((a, b) => a + b.rows, 0) / r.reduce((a, b) => a + b.seconds, 0)
    }
    const exact = (side: Side) => runs[side].every((r) => r.exact)
    const describe = (side: Side) =>
      `${round(rate(side), 0)} rows/s (${runs[side].map((r) => `${r.seconds} s`).join(', ')}), ${exact(side) ? 'exact' : `NOT EXACT: ${JSON.stringify(runs[side].filter((r) => !r.exact))}`}`
    const frozen = rate('frozen')
    const queue = rate('queue')
    const grants = rate('grants')
    const target = Math.min(3 * frozen, 0.8 * grants)
    const rows: Row[] = [
      {
        metric: `send to many, local: ${ROWS} rows, queue worker (${BATCH_WORK.maxConcurrency} x ${BATCH_WORK.rowsInParallel} rows at once) vs the worker of 264cf9e`,
        value: describe('queue'),
        baseline: describe('frozen'),
        ratio: round(queue / frozen),
        target: `>= 3x, or >= 80% of plain grants (${round(0.8 * grants, 0)} rows/s) if lower: >= ${round(target, 0)} rows/s, exact`,
        met: queue >= target && exact('queue') && exact('frozen'),
      },
      {
        metric: `send to many, local: ${ROWS} plain grants at concurrency ${CONCURRENCY} (DynamoDB Local's grant rate)`,
        value: describe('grants'),
        ratio: round(queue / grants),
        target: 'exact',
        met: exact('grants'),
      },
    ]
    return {
      rows,
      result: {
        rows: ROWS,
        rounds: ROUNDS,
        batchWork: BATCH_WORK,
        rowsPerSecond: { frozen, queue, grants },
        targetRowsPerSecond: target,
        runs,
      },
    }
  },
}

const round2 = (n: number) => round(n, 0)

/** One side, one round: a fresh program, the rows, the work, and the check. */
const runSide = async (
  side: Side,
  d: Database,
  runtime: Runtime,
  rowsQueue: QueueSender,
  pass: number,
): Promise<SideRun> => {
  const expected = Array.from({ length: ROWS }, (_, i) => amountOf(i)).reduce((a, b) => a + b, 0)
  // Tried again while DynamoDB Local is busy (a second program, if the first call did land, is
  // never used).
  const program = await patiently(() =>
    d.admin.createProgram({
      issuer: d.issuerId,
      mode: 'TEST',
      name: `batch-local ${side} ${pass}`,
      pool: 2 * expected,
    }),
  )
  const actor = { kind: 'person' as const, sub: 'bench-sub', email: 'bench@example.com' }
  const reason = 'Bench batch'
  const csv = [
    'email,amount',
    ...Array.from(
      { length: ROWS },
      (_, i) => `r${i}-${side}-${pass}-${d.next()}@example.com,${amountOf(i)}`,
    ),
  ].join('\n')
  const checked = checkBatchRows(csv, reason)
  if (checked.valid !== ROWS) throw new Error(`${checked.valid} valid rows of ${ROWS}`)
  const batches = new DynamoDbBatchStore(d.documentClient, d.config.tables)
  const grantStore = new DynamoDbGrantStore(d.documentClient, d.config.tables)

  let seconds: number
  let grantIds: string[] = []
  let failedRows = 0
  if (side === 'grants') {
    const grant = makeGrantTokens({
      store: grantStore,
      access: new AccessCache(grantStore, { now: () => runtime.monotonic.now() }),
      clock: () => runtime.clock.now(),
    })
    let next = 0
    const started = performance.now()
    const client = async () => {
      while (next < ROWS) {
        const row = checked.rows[next++] as (typeof checked.rows)[number]
        // One key a row, so that a try whose answer was lost is not granted twice.
        const idempotencyKey = `bench-plain-${pass}-${d.next()}-${row.row}`
        // As the worker does: a busy DynamoDB Local (a timeout) is tried again.
        const { grant: made } = await retrying(
          () =>
            grant({
              member: {
                issuerId: d.issuerId,
                sentBy: { sub: actor.sub, email: actor.email },
                mode: 'TEST',
              },
              programId: program.programId,
              idempotencyKey,
              body: { recipient: { email: row.email }, reason, amount: row.amount },
            }),
          { backoff: RETRY.batchStore, again: isTransient, until: Date.now() + GIVE_UP_MS },
        )
        grantIds.push(made.grantId)
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, client))
    seconds = (performance.now() - started) / 1000
  } else {
    // The batch, created by today's commit; its chunk messages held back until the clock starts.
    const held = new Map<string, { id: string; body: string }>()
    const commit = makeBatchCommit({
      batches,
      queue: {
        sendBatch: async (entries) => {
          for (const entry of entries) held.set(entry.id, entry)
          return { failed: [] }
        },
      },
      clock: () => runtime.clock.now(),
    })
    // Set-up, tried again while the shared machine makes DynamoDB Local time out (a commit with
    // the same key is the same batch).
    const idempotencyKey = `bench-batch-${side}-${pass}-${d.next()}`
    const { batch } = await patiently(() =>
      commit({
        program,
        issuerId: d.issuerId,
        actor,
        csv,
        reason,
        checked,
        idempotencyKey,
        requestId: `bench-${d.next()}`,
      }),
    )
    let started: number
    if (side === 'frozen') {
      const store = new LeaseBatchStore(d.documentClient, d.config.tables)
      await patiently(() => store.prepareLease(batch.batchId))
      const handler = makeFrozenBatchWorkerHandler(runtime)
      started = performance.now()
      await inProcessInvoker(async () => handler)({ batchId: batch.batchId })
      await Promise.race([localWorkersIdle(), giveUp()])
    } else {
      started = performance.now()
      const messages = [...held.values()]
      for (let i = 0; i < messages.length; i += 10) {
        const { failed } = await rowsQueue.sendBatch(messages.slice(i, i + 10))
        if (failed.length > 0) throw new Error(`the local queue refused ${failed.length} messages`)
      }
      await Promise.race([untilFinal(batches, batch.batchId), giveUp()])
    }
    seconds = (performance.now() - started) / 1000
    const done = (await patiently(() => batches.getBatch(batch.batchId))) as BatchRecord
    if (done.status !== 'done') throw new Error(`${side}: batch ${done.status}, not done`)
    // BatchGetItem takes 100 keys a call (5,000 rows are 50 chunks).
    const chunks = await patiently(() => batches.getChunks(done, 0, Math.min(100, done.chunks)))
    for (const chunk of chunks) {
      for (const result of chunk.results) {
        if (result.status === 'granted') grantIds.push(result.grantId)
        else failedRows++
      }
    }
  }
  const read = await patiently(() => grantStore.findProgram(program.programId))
  const issued = read?.issued ?? 0
  const grantItems = await countGrants(d, program.programId)
  const distinctGrantIds = new Set(grantIds).size
  grantIds = []
  return {
    rows: ROWS,
    seconds: round(seconds, 2),
    rowsPerSecond: ROWS / seconds,
    issued,
    expected,
    grantItems,
    distinctGrantIds,
    failedRows,
    exact:
      issued === expected && grantItems === ROWS && distinctGrantIds === ROWS && failedRows === 0,
  }
}

/** What the worker tries again (grant-batch-worker.ts's rule): busy, away, in conflict. */
const isTransient = (error: unknown) =>
  error instanceof DomainError
    ? error.code === 'service_unavailable' || error.code === 'request_conflict'
    : transientKind(error) !== undefined

/**
 * A set-up call or a read of the outcome, tried again while a busy machine makes DynamoDB Local
 * time out: for up to 2 minutes (a count of tries ran out when other work starved the machine).
 */
const patiently = <T>(read: () => Promise<T>): Promise<T> =>
  retrying(read, {
    backoff: RETRY.benchPatience,
    again: isTransient,
    until: Date.now() + 120_000,
  })

const giveUp = () =>
  new Promise<never>((_, reject) =>
    setTimeout(
      () => reject(new Error(`not done after ${GIVE_UP_MS / 1000} s`)),
      GIVE_UP_MS,
    ).unref(),
  )

/** Until the batch is done or canceled (read every 100 ms: well under a chunk's time). */
const untilFinal = async (batches: DynamoDbBatchStore, batchId: string) => {
  for (;;) {
    const batch = await patiently(() => batches.getBatch(batchId))
    if (batch && FINAL_BATCH_STATUSES.includes(batch.status)) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * The program's grant items (the grants table, read whole: other items filtered out). Each page
 * is tried again on its own: the table holds every earlier round's grants, and one busy second of
 * DynamoDB Local must not restart the whole count.
 */
const countGrants = async (d: Database, programId: string) => {
  const items = await scanAll<{ grantId: string }>(
    <T>(command: { readonly input: object }) =>
      patiently(() => d.documentClient.send(command as never) as Promise<T>),
    {
      TableName: d.config.tables.grants,
      FilterExpression: 'programId = :p',
      ExpressionAttributeValues: { ':p': programId },
      ProjectionExpression: 'grantId',
      ConsistentRead: true,
    },
  )
  return items.length
}
