import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb'
import { PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import {
  attachContentionModel,
  MODEL_DEFAULTS,
  modelledIndexes,
} from '../../bench/contention/dynamodb-model'
import { runHotProgram } from '../../bench/contention/hot-program'
import { VirtualTime } from '../../bench/contention/virtual-time'
import { createDocumentClient, createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import {
  INDEX,
  type IndexSchema,
  TABLES,
  type TableKey,
  tableNames,
} from '../../functions/table-schema'
import { ensureTables } from '../../local/tables'
import { seededRandom } from '../support/fault-injector'
import { config } from '../support/runtime'
import { type CfnTemplate, resourcesOfType, synth } from '../support/synth'

/**
 * The contention model (bench/contention) against the limits AWS documents, with DynamoDB Local
 * underneath: what its parameters imply must come out of it, in virtual time.
 */
const endpoint = config.dynamodbEndpoint as string
// Tables of this file's own: the model's raw writes (bare issuer items, counters) never reach the
// tables other test files list.
const tables = tableNames('model', `-${process.pid}`)
beforeAll(async () => {
  await ensureTables(createDynamoDbClient({ endpoint }), tables)
})

const modelled = (params = MODEL_DEFAULTS) => {
  const time = new VirtualTime()
  const raw = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  })
  const stats = attachContentionModel(raw, {
    time,
    tables,
    params,
    random: seededRandom(11),
  })
  return { time, stats, client: createDocumentClient(raw) }
}

describe('the contention model', () => {
  it('lets one item take at most 1 / service time transactions per second, and cancels the rest as DynamoDB does', async () => {
    // A fixed 10 ms service time: one item can take 100 transactions a second, no more.
    const fixed = { ...MODEL_DEFAULTS, transaction: { medianMs: 10, p99Ms: 10 } }
    const { time, client } = modelled(fixed)
    const programId = `model-item-${Date.now()}`
    let committed = 0
    let cancellation: TransactionCanceledException | undefined
    await time.run(
      Array.from({ length: 8 }, () => async () => {
        while (time.now() < 1_000) {
          try {
            await client.send(
              new TransactWriteCommand({
                TransactItems: [
                  {
                    Update: {
                      TableName: tables.programs,
                      Key: { programId },
                      UpdateExpression: 'ADD issued :one',
                      ExpressionAttributeValues: { ':one': 1 },
                    },
                  },
                ],
              }),
            )
            committed++
          } catch (error) {
            if (!(error instanceof TransactionCanceledException)) throw error
            cancellation = error
            await time.sleep(1)
          }
        }
      }),
    )
    expect(committed).toBeLessThanOrEqual(101)
    expect(committed).toBeGreaterThan(80)
    expect(cancellation?.message).toBe(
      'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]',
    )
    expect(cancellation?.CancellationReasons).toEqual([
      { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' },
    ])
  })

  it('lets one partition take 1,000 write units a second and throttles the rest', async () => {
    // One partition per table: every write lands on it. PutItem of a small item: 1 unit.
    const { time, client, stats } = modelled({ ...MODEL_DEFAULTS, partitions: 1 })
    let written = 0
    let throttled = 0
    await time.run(
      Array.from({ length: 16 }, (_, c) => async () => {
        for (let n = 0; time.now() < 1_000; n++) {
          try {
            await client.send(
              new PutCommand({
                TableName: tables.issuers,
                Item: { issuerId: `model-${c}-${n}-${Date.now()}`, name: 'x' },
              }),
            )
            written++
          } catch (error) {
            if ((error as Error).name !== 'ProvisionedThroughputExceededException') throw error
            throttled++
            await time.sleep(1)
          }
        }
      }),
    )
    // 1,000 units over the second, plus the 0.1 s a partition may bank.
    expect(written).toBeLessThanOrEqual(1_000 * (1 + MODEL_DEFAULTS.burstSeconds) + 16)
    expect(written).toBeGreaterThan(900)
    expect(throttled).toBeGreaterThan(0)
    expect(stats.throttles).toBe(throttled)
  })

  it('fails a single-item write on an item a transaction holds with TransactionConflictException', async () => {
    const { time, client } = modelled()
    const programId = `model-single-${Date.now()}`
    const outcomes: string[] = []
    await time.run([
      async () => {
        await client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: tables.programs,
                  Key: { programId },
                  UpdateExpression: 'ADD issued :one',
                  ExpressionAttributeValues: { ':one': 1 },
                },
              },
            ],
          }),
        )
        outcomes.push('transaction')
      },
      async () => {
        try {
          await client.send(
            new UpdateCommand({
              TableName: tables.programs,
              Key: { programId },
              UpdateExpression: 'ADD issued :one',
              ExpressionAttributeValues: { ':one': 1 },
            }),
          )
          outcomes.push('single')
        } catch (error) {
          outcomes.push((error as Error).name)
        }
      },
    ])
    expect(outcomes.sort()).toEqual(['TransactionConflictException', 'transaction'])
  })

  it('shows the sharded design taking several times the grants of one counter at concurrency 32', async () => {
    const common = { concurrency: 32, requests: 300, endpoint, tables }
    const baseline = await runHotProgram({ design: 'baseline', ...common })
    const sharded = await runHotProgram({ design: 'sharded', ...common })
    expect(baseline.transactionConflicts).toBeGreaterThan(sharded.transactionConflicts)
    expect(sharded.grantsPerSecond).toBeGreaterThan(3 * baseline.grantsPerSecond)
    expect(sharded.conflicts409).toBeLessThanOrEqual(baseline.conflicts409)
  })
})

describe('grants of mixed amounts in the contention model', () => {
  it('keeps the pool exact, answers under 1% 409s, and never leaves a grant that fits with a 409 after the bundled client retries', async () => {
    // A small copy of the bench's figure (pool 10,000,000, 256 clients, 10,000 grants): amounts
    // uniform over 1 to 2,000 shares, from a seeded stream of their own: these 1,000 ask
    // 1,000,248 in all, so a pool of 980,000 runs out in the last few dozen. 64 shards of 15,312
    // or 15,313. Each client retries as client/src/grant-client.ts does.
    const pool = 980_000
    const draw = seededRandom(2)
    const amounts = Array.from({ length: 1_000 }, () => 1 + Math.floor(draw() * 2_000))
    expect(amounts.reduce((a, b) => a + b, 0)).toBe(1_000_248)
    const run = await runHotProgram({
      design: 'sharded',
      concurrency: 64,
      requests: amounts.length,
      pool,
      amount: (n) => amounts[n] as number,
      client: 'bundled',
      seed: 23,
      endpoint,
      tables,
    })
    // Exact: what the shards count, what the table stores and what was acknowledged agree, and
    // the slices hold the rest (pool = issued + Σ remaining).
    expect(run.issued).toBe(run.grantedAmount)
    expect(run.acknowledgedAmount).toBe(run.grantedAmount)
    expect(run.grantItems).toBe(run.created)
    expect((run.issued ?? 0) + (run.remainingAtEnd ?? 0)).toBe(pool)
    // The pool ran out near the end: some grants refused, and only ones it could not hold.
    expect(run.exhausted409).toBeGreaterThan(0)
    expect(run.wronglyRefused).toBe(0)
    expect(run.remainingAtEnd).toBeLessThan(2_000)
    // Every request answered: created or refused, none left with a 409 or a 503.
    expect(run.created + run.exhausted409).toBe(run.requests)
    expect(run.conflicts409).toBe(0)
    expect(run.fitting409).toBe(0)
    expect(run.conflictAnswers).toBeLessThanOrEqual(run.requests * 0.01)
  })
})

describe('the contention model’s indexes', () => {
  type CfnIndex = {
    IndexName: string
    KeySchema: { AttributeName: string; KeyType: string }[]
    Projection: { ProjectionType: string; NonKeyAttributes?: string[] }
  }
  /** Each table's global secondary indexes in a synthesized template, in CloudFormation's terms. */
  const templateIndexes = (template: CfnTemplate) =>
    Object.fromEntries(
      (Object.keys(TABLES) as TableKey[]).map((key) => {
        const prefix = `Tables${key[0]?.toUpperCase()}${key.slice(1)}`
        const [, table] = resourcesOfType(template, 'AWS::DynamoDB::Table').find(([id]) =>
          id.startsWith(prefix),
        ) as [string, { Properties: { GlobalSecondaryIndexes?: CfnIndex[] } }]
        return [key, (table.Properties.GlobalSecondaryIndexes ?? []).map(cfn).sort(byName)]
      }),
    )
  const cfn = (index: CfnIndex) => ({
    name: index.IndexName,
    keys: index.KeySchema.map((k) => `${k.KeyType} ${k.AttributeName}`),
    projection: [index.Projection.ProjectionType, ...(index.Projection.NonKeyAttributes ?? [])],
  })
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name)
  /** The model's, in the same terms. */
  const modelIndexes = (options: { keepLegacyIndexes?: boolean } = {}) =>
    Object.fromEntries(
      Object.entries(modelledIndexes(options)).map(([key, indexes]) => [
        key,
        (indexes as readonly IndexSchema[])
          .map((index) => ({
            name: index.indexName,
            keys: [
              `HASH ${index.partitionKey.name}`,
              ...(index.sortKey ? [`RANGE ${index.sortKey.name}`] : []),
            ],
            projection: [
              index.projection.type,
              ...(index.projection.type === 'INCLUDE' ? index.projection.nonKeyAttributes : []),
            ],
          }))
          .sort(byName),
      ]),
    )

  it('are exactly those of the template a plain cdk deploy synthesizes, and of a stage that keeps the legacy ones', () => {
    const plain = templateIndexes(synth().json)
    expect(modelIndexes()).toEqual(plain)
    // The figures describe the final design: no index keyed by program alone, none projecting a
    // program's counters.
    // (byRecipient, issue 19: a recipient's grants by address, keyed by the address.)
    expect(plain.grants?.map((i) => i.name)).toEqual([
      INDEX.grantsByProgramSlot,
      INDEX.grantsByRecipient,
    ])
    expect(plain.programs?.map((i) => i.name)).toEqual([INDEX.programsByIssuer])
    expect(modelIndexes({ keepLegacyIndexes: true })).toEqual(
      templateIndexes(synth({ keepLegacyIndexes: 'true' }).json),
    )
  })

  it('writes the indexes it models: a grant item costs byProgramSlot units, and byProgram too only on a stage that keeps it', async () => {
    const write = async (keepLegacyIndexes: boolean) => {
      const raw = new DynamoDBClient({
        endpoint,
        region: 'local',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      })
      const stats = attachContentionModel(raw, {
        time: new VirtualTime(),
        tables,
        random: seededRandom(5),
        keepLegacyIndexes,
      })
      await createDocumentClient(raw).send(
        new PutCommand({
          TableName: tables.grants,
          Item: {
            grantId: `grt_index_${keepLegacyIndexes}_${process.pid}`,
            programId: 'prg_index',
            programSlot: 'prg_index#3',
            createdAt: new Date(0).toISOString(),
          },
        }),
      )
      return [...stats.unitsByPartition.keys()]
        .filter((partition) => partition.startsWith(`${tables.grants}/`))
        .map((partition) => partition.slice(tables.grants.length + 1).replace(/#\d+$/, ''))
        .sort()
    }
    expect(await write(false)).toEqual([INDEX.grantsByProgramSlot])
    expect(await write(true)).toEqual([INDEX.grantsByProgram, INDEX.grantsByProgramSlot])
  })
})
