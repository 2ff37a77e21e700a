import { runBatchModel } from '../../bench/contention/batch-rows'
import { IoVirtualTime } from '../../bench/contention/io-virtual-time'
import { createIssuerWithKey, openModel } from '../../bench/contention/model-setup'
import { BATCH_WORK } from '../../functions/consumers'
import { makeBatchCommit } from '../../functions/core/batch-commit'
import { checkBatchRows } from '../../functions/domain/batch-rows'
import { DynamoDbBatchStore } from '../../functions/stores/batches.dynamodb'
import { createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import { transientKind } from '../../functions/stores/store-errors'
import { tableNames } from '../../functions/table-schema'
import { ensureTables } from '../../local/tables'
import { seededRandom } from '../support/fault-injector'
import { config } from '../support/runtime'

/**
 * Send to many in the contention model (bench/contention/batch-rows.ts): today's worker on a local
 * GrantBatchRows queue, BATCH_WORK's invocations and rows at once, over DynamoDB Local with the
 * model's conflicts (the chunks' commits race on the batch's counters, the rows on the program's
 * shards), in virtual time. A small copy of the bench's 50,000-row run (`BENCH_ONLY=batch-model`).
 */
const endpoint = config.dynamodbEndpoint as string
const tables = tableNames('batch-model', `-${process.pid}`)
beforeAll(async () => {
  await ensureTables(createDynamoDbClient({ endpoint }), tables)
})

describe('a batch in the contention model', () => {
  it('grants every row exactly once, each chunk in one delivery, when the pool holds them all', async () => {
    // Five chunks of 20 rows, more rows a chunk than run at once (16), as the bench's of 100; on
    // the five shards of a pool of 500, as the 500-row batch this stands for had.
    const run = await runBatchModel({ endpoint, tables, rows: 100, chunkRows: 20, pool: 500 })
    expect(run.invocations).toBe(BATCH_WORK.maxConcurrency)
    expect(run.rowsInParallel).toBe(BATCH_WORK.rowsInParallel)
    expect(run).toMatchObject({
      status: 'done',
      granted: 100,
      failed: 0,
      issued: 100,
      grantItems: 100,
      grantedAmount: 100,
      distinctGrantIds: 100,
      remainingAtEnd: 400,
      // More chunks than invocations: one invocation takes a second chunk.
      chunks: 5,
      // A commit that met another's hold on the batch was tried again at once, not handed back
      // to the queue (which would have waited out the 360 s visibility timeout).
      deliveries: 5,
      deadLetters: 0,
      exact: true,
    })
    // The model did make them contend (the shards; what it adds over DynamoDB Local).
    expect(run.transactionConflicts).toBeGreaterThan(0)
    expect(run.chunkSecondsMax).toBeLessThan(60)
  })

  it('answers a chunk commit that meets another on the batch counters as a conflict, which the worker tries again', async () => {
    // Two chunks' commits at the same virtual instant: both write the batch's counters, so the
    // second meets the first's hold, as on DynamoDB (DynamoDB Local alone never shows it).
    const time = new IoVirtualTime()
    const model = openModel({ endpoint, tables, time, random: seededRandom(3) })
    time.attach(model.raw)
    const { issuerId } = await createIssuerWithKey(model, tables, { name: 'commits', mode: 'TEST' })
    const program = await model.admin.createProgram({ issuer: issuerId, mode: 'TEST', name: 'p' })
    const csv = ['email,amount', ...Array.from({ length: 150 }, (_, i) => `c${i}@example.com,1`)]
    const checked = checkBatchRows(csv.join('\n'), 'Commits')
    const { batch } = await makeBatchCommit({
      batches: new DynamoDbBatchStore(model.setupClient, tables),
      queue: { sendBatch: async () => ({ failed: [] }) },
      clock: Date.now,
    })({
      program,
      issuerId,
      actor: { kind: 'person', sub: 's', email: 'a@example.com' },
      csv: csv.join('\n'),
      reason: 'Commits',
      checked,
      idempotencyKey: `commits-${Date.now()}`,
      requestId: 'commits',
    })
    expect(batch.chunks).toBe(2)
    const batches = new DynamoDbBatchStore(model.client, tables)
    const outcomes = await Promise.allSettled(
      [0, 1].map((index) =>
        batches.commitChunk({
          batch,
          index,
          before: 0,
          results: [{ status: 'canceled' }],
          granted: 0,
          failed: 0,
          canceled: 1,
          complete: false,
          now: Date.now(),
        }),
      ),
    )
    model.raw.destroy()
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: 'committed' })
    expect(outcomes[1]?.status).toBe('rejected')
    // What the worker's rule (grant-batch-worker.ts isTransient) tries again in the same delivery.
    expect(transientKind((outcomes[1] as PromiseRejectedResult).reason)).toBe('conflict')
    expect(model.stats.transactionConflicts).toBe(1)
  })

  it('fails exactly the rows the pool cannot hold as pool_exhausted, and grants every other', async () => {
    // Three chunks on a pool of two shards (the bench runs 10,000 rows on a pool of 7,500).
    const run = await runBatchModel({ endpoint, tables, rows: 300, pool: 200 })
    expect(run).toMatchObject({
      status: 'done',
      granted: 200,
      failed: 100,
      failedCodes: { pool_exhausted: 100 },
      issued: 200,
      grantItems: 200,
      distinctGrantIds: 200,
      remainingAtEnd: 0,
      exact: true,
    })
  })
})

describe('the clock of the batch model', () => {
  it('moves once every task inside a client waits on it, and stands still while real I/O is in flight', async () => {
    const time = new IoVirtualTime()
    const ends: number[] = []
    let realDone = 0
    await time.run([
      async () => {
        // 16 tasks of the client's own, none started through the clock: 10 ms each, at once.
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            await time.sleep(10)
            ends.push(time.now())
          }),
        )
        // 50 ms of real waiting counted as I/O: no virtual time passes.
        const before = time.now()
        await time.real(() => new Promise((resolve) => setTimeout(resolve, 50)))
        realDone = time.now() - before
        await time.sleep(5)
      },
      async () => {
        await time.sleep(3)
        await time.sleep(3)
      },
    ])
    expect(ends).toEqual(Array.from({ length: 16 }, () => 10))
    expect(realDone).toBe(0)
    expect(time.now()).toBe(15)
  })
})
