import { BATCH_WORK, consumerById, GRANT_BATCH_ROWS_QUEUE } from '../../functions/consumers'
import { AccessCache } from '../../functions/core/access-cache'
import { makeBatchCommit } from '../../functions/core/batch-commit'
import { makeBatchRowsWorker } from '../../functions/core/grant-batch-worker'
import { makeGrantTokens } from '../../functions/core/grant-tokens'
import type { BatchRecord } from '../../functions/domain/batch'
import { checkBatchRows } from '../../functions/domain/batch-rows'
import { DynamoDbBatchStore } from '../../functions/stores/batches.dynamodb'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import type { TableKey } from '../../functions/table-schema'
import { LocalQueue, pollOnce } from '../../local/queue'
import { seededRandom } from '../../test/support/fault-injector'
import type { ModelParams } from './dynamodb-model'
import { IoVirtualTime } from './io-virtual-time'
import { countGrants, createIssuerWithKey, openModel, percentile } from './model-setup'

/**
 * A send-to-many batch on one program in the contention model (issue 20): today's worker
 * (functions/core/grant-batch-worker.ts, makeBatchRowsWorker) over DynamoDB Local, with the model's
 * conflicts, partitions and service times, in virtual time (./io-virtual-time.ts: the worker runs
 * its rows with a Promise.all of its own).
 *
 * The batch is committed outside the model (makeBatchCommit: its chunks, the batch, one message per
 * chunk), onto a local GrantBatchRows queue (local/queue.ts: visibility timeout, redelivery) on the
 * virtual clock. Then `invocations` Lambda instances (the event source mapping's maxConcurrency),
 * each with its own caches, poll it with GrantBatchWorker's batchSize and run the worker
 * on each message, until the batch is done. The rate counts from the first receive to the last
 * chunk's commit. The worker's own time budget reads the wall clock (Lambda's remaining time): it is
 * given an hour, so the model never stops a chunk early; the longest chunk, in virtual seconds, is
 * reported against the function's timeout.
 */
export type BatchModelRun = {
  rows: number
  pool: number
  invocations: number
  rowsInParallel: number
  status: string
  granted: number
  failed: number
  /** Failed rows by code (pool_exhausted only, when the pool is smaller than the batch). */
  failedCodes: Record<string, number>
  virtualSeconds: number
  rowsPerSecond: number
  /** The program's issued after the run, the grant items and their amounts, distinct grant ids. */
  issued: number
  grantItems: number
  grantedAmount: number
  distinctGrantIds: number
  /** What the program's shards still hold (pool = issued + remainingAtEnd). */
  remainingAtEnd: number
  exact: boolean
  /** Deliveries of chunk messages (one per chunk when none came back) and the dead letters. */
  deliveries: number
  chunks: number
  /**
   * Chunk commits sent, retries included: above `chunks` when a commit met another's hold on the
   * batch's counters (each chunk commits them) and was tried again.
   */
  commitAttempts: number
  deadLetters: number
  /** Virtual seconds one delivery took, p50 and max, against the function's timeout. */
  chunkSecondsP50: number
  chunkSecondsMax: number
  transactionConflicts: number
  throttles: number
  callsPerRow: number
}

export type BatchModelOptions = {
  endpoint: string
  tables: Record<TableKey, string>
  rows: number
  /** The program's pool (default: exactly the rows' sum, every row fits). */
  pool?: number
  invocations?: number
  rowsInParallel?: number
  params?: ModelParams
  seed?: number
  /** Rows a chunk (default the service's, BATCH_LIMITS.chunkRows): a test's small copy passes fewer. */
  chunkRows?: number
  /** Told every few thousand rows where the run is (a long run). */
  onProgress?: (line: string) => void
}

export const runBatchModel = async (options: BatchModelOptions): Promise<BatchModelRun> => {
  const { endpoint, tables, rows } = options
  const invocations = options.invocations ?? BATCH_WORK.maxConcurrency
  const rowsInParallel = options.rowsInParallel ?? BATCH_WORK.rowsInParallel
  const seed = options.seed ?? 20
  const pool = options.pool ?? rows
  const random = seededRandom(seed)
  const time = new IoVirtualTime()
  const model = openModel({ endpoint, tables, time, params: options.params, random })
  time.attach(model.raw)
  const { client, setupClient, admin, stats } = model

  // Set-up outside the model: issuer, program with its pool, the batch (1 share a row).
  const { issuerId } = await createIssuerWithKey(model, tables, {
    name: `batch model ${rows}`,
    mode: 'LIVE',
  })
  const program = await admin.createProgram({
    issuer: issuerId,
    mode: 'LIVE',
    name: 'batch',
    pool,
  })
  const csv = [
    'email,amount',
    ...Array.from({ length: rows }, (_, i) => `m${i}@example.com,1`),
  ].join('\n')
  const checked = checkBatchRows(csv, 'Batch', { field: 'upload', maxBytes: 32 * 1024 * 1024 })
  const epoch = Date.now()
  const clock = () => epoch + time.now()
  const queue = new LocalQueue(GRANT_BATCH_ROWS_QUEUE, { now: clock })
  const setupBatches = new DynamoDbBatchStore(setupClient, tables)
  const { batch } = await makeBatchCommit({
    batches: setupBatches,
    queue: {
      sendBatch: async (entries) => ({ failed: queue.sendBatch(entries).failed.map((f) => f.id) }),
    },
    clock,
    chunkRows: options.chunkRows,
  })({
    program,
    issuerId,
    actor: { kind: 'person', sub: 'model-sub', email: 'model@example.com' },
    csv,
    reason: 'Batch',
    checked,
    idempotencyKey: `model-${seed}-${epoch}`,
    requestId: `model-${seed}`,
  })
  model.resetCalls()

  const trigger = consumerById('GrantBatchWorker').trigger
  const batchSize = trigger.kind === 'queue' ? trigger.batchSize : 1
  const chunkMs: number[] = []
  let deliveries = 0
  let lastReport = 0
  const batches = new CountingBatchStore(client, tables)
  /** One Lambda instance: its own caches, one message at a time, until the queue is empty. */
  const instance = async (n: number) => {
    const grants = new DynamoDbGrantStore(client, tables)
    const worker = makeBatchRowsWorker({
      batches,
      grantTokens: makeGrantTokens({
        store: grants,
        access: new AccessCache(grants, { now: time.now }),
        clock,
        sleep: time.sleep,
        random,
      }),
      clock,
      rowsInParallel,
      sleep: time.sleep,
      random,
    })
    for (;;) {
      const counts = queue.counts()
      if (counts.visible === 0 && counts.inFlight === 0) return
      const started = time.now()
      const outcome = await pollOnce(
        queue,
        (event) =>
          worker(event, {
            awsRequestId: `model-${n}-${deliveries}`,
            getRemainingTimeInMillis: () => 3_600_000,
          }),
        batchSize,
      )
      if (outcome.received === 0) {
        // Nothing visible: a message another instance holds may come back; Lambda polls again.
        await time.sleep(1_000)
        continue
      }
      deliveries += outcome.received
      chunkMs.push(time.now() - started)
      if (options.onProgress && deliveries - lastReport >= 50) {
        lastReport = deliveries
        options.onProgress(`${round1(time.now() / 1000)} s: ${deliveries} deliveries`)
      }
    }
  }
  await time.run(Array.from({ length: invocations }, (_, n) => () => instance(n)))
  const virtualSeconds = time.now() / 1000

  // Exactness, read outside the model.
  const done = (await setupBatches.getBatch(batch.batchId)) as BatchRecord
  const chunks = []
  // BatchGetItem takes 100 keys a call.
  for (let from = 0; from < done.chunks; from += 100) {
    chunks.push(...(await setupBatches.getChunks(done, from, Math.min(done.chunks, from + 100))))
  }
  const grantIds = new Set<string>()
  const failedCodes: Record<string, number> = {}
  for (const chunk of chunks) {
    for (const result of chunk.results) {
      if (result.status === 'granted') grantIds.add(result.grantId)
      else if (result.status === 'failed')
        failedCodes[result.code] = (failedCodes[result.code] ?? 0) + 1
    }
  }
  const reader = new DynamoDbGrantStore(setupClient, tables)
  const head = await reader.findProgram(program.programId)
  const shards = await reader.readShards(program.programId, head?.shards ?? 0)
  const remainingAtEnd = shards.reduce((sum, s) => sum + (s.remaining ?? 0), 0)
  const stored = await countGrants(setupClient, tables.grants, program.programId)
  const issued = head?.issued ?? 0
  const fit = Math.min(rows, pool)
  const exact =
    done.status === 'done' &&
    done.granted === fit &&
    done.failed === rows - fit &&
    issued === fit &&
    stored.count === fit &&
    stored.amount === fit &&
    grantIds.size === fit &&
    (failedCodes.pool_exhausted ?? 0) === rows - fit &&
    issued + remainingAtEnd === pool
  const calls = Object.values(stats.calls).reduce((a, b) => a + b, 0)
  model.raw.destroy()
  const sorted = [...chunkMs].sort((a, b) => a - b)
  return {
    rows,
    pool,
    invocations,
    rowsInParallel,
    status: done.status,
    granted: done.granted,
    failed: done.failed,
    failedCodes,
    virtualSeconds,
    rowsPerSecond: rows / virtualSeconds,
    issued,
    grantItems: stored.count,
    grantedAmount: stored.amount,
    distinctGrantIds: grantIds.size,
    remainingAtEnd,
    exact,
    deliveries,
    chunks: done.chunks,
    commitAttempts: batches.commits,
    deadLetters: queue.counts().deadLetters,
    chunkSecondsP50: percentile(sorted, 0.5) / 1000,
    chunkSecondsMax: (sorted.at(-1) ?? 0) / 1000,
    transactionConflicts: stats.transactionConflicts,
    throttles: stats.throttles,
    callsPerRow: calls / rows,
  }
}

/** Today's store, counting the chunk commits it is asked for. */
class CountingBatchStore extends DynamoDbBatchStore {
  commits = 0
  override commitChunk(...args: Parameters<DynamoDbBatchStore['commitChunk']>) {
    this.commits++
    return super.commitChunk(...args)
  }
}

const round1 = (n: number) => Math.round(n * 10) / 10
