import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb'
import { PutCommand } from '@aws-sdk/lib-dynamodb'
import { grantListSlot } from '../../functions/domain/grant-slots'
import { newId } from '../../functions/domain/ids'
import { DynamoDbAdminStore } from '../../functions/stores/admin.dynamodb'
import type { AdminTableNames } from '../../functions/stores/admin.store'
import { DynamoDbGrantReads } from '../../functions/stores/grants.reads.dynamodb'
import { type IndexSchema, TABLES, type TableKey, tableNames } from '../../functions/table-schema'
import { ensureTables } from '../../local/tables'
import { documentClient, dynamodb } from '../support/runtime'

/** local/tables.ts on the run's DynamoDB Local: the schema of table-schema.ts, and upgrades. */
const tablesFor = (tag: string): AdminTableNames => tableNames('vs', `-${tag}-${process.pid}`)

const indexesOf = async (name: string) =>
  Object.fromEntries(
    (
      (await dynamodb.send(new DescribeTableCommand({ TableName: name }))).Table
        ?.GlobalSecondaryIndexes ?? []
    ).map((i) => [
      i.IndexName,
      {
        keys: i.KeySchema?.map((k) => `${k.AttributeName} ${k.KeyType}`),
        projection: i.Projection?.ProjectionType,
        include: i.Projection?.NonKeyAttributes ?? [],
        status: i.IndexStatus,
      },
    ]),
  )

const expected = (index: IndexSchema) => ({
  keys: [
    `${index.partitionKey.name} HASH`,
    ...(index.sortKey ? [`${index.sortKey.name} RANGE`] : []),
  ],
  projection: index.projection.type,
  include: index.projection.type === 'INCLUDE' ? [...index.projection.nonKeyAttributes] : [],
  status: 'ACTIVE',
})

it('creates each table with the indexes and projections of table-schema.ts, and no legacy index', async () => {
  const tables = tablesFor('fresh')
  expect((await ensureTables(dynamodb, tables)).sort()).toEqual(Object.values(tables).sort())
  for (const key of Object.keys(TABLES) as TableKey[]) {
    const indexes: readonly IndexSchema[] = TABLES[key].globalSecondaryIndexes
    expect(await indexesOf(tables[key])).toEqual(
      Object.fromEntries(indexes.map((i) => [i.indexName, expected(i)])),
    )
  }
  expect(await ensureTables(dynamodb, tables)).toEqual([])
})

it('adds byIssuerV2 to a programs table made by the previous version (a kept .local/dynamodb)', async () => {
  const tables = tablesFor('upgrade')
  await dynamodb.send(
    new CreateTableCommand({
      TableName: tables.programs,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'programId', AttributeType: 'S' },
        { AttributeName: 'issuerId', AttributeType: 'S' },
        { AttributeName: 'createdAt', AttributeType: 'S' },
      ],
      KeySchema: [{ AttributeName: 'programId', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byIssuer',
          KeySchema: [
            { AttributeName: 'issuerId', KeyType: 'HASH' },
            { AttributeName: 'createdAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  )
  // The CLI of this release on a stage not yet upgraded says what to do.
  await expect(
    new DynamoDbAdminStore(documentClient, tables).listPrograms({
      issuerId: 'iss_00000000000000000000000000',
    }),
  ).rejects.toThrow(
    new RegExp(
      `^Table ${tables.programs} has no usable index byIssuerV2 \\(.*\\): deploy this release to the stage first`,
    ),
  )
  const created = await ensureTables(dynamodb, tables)
  expect(created).not.toContain(tables.programs)
  const [current] = TABLES.programs.globalSecondaryIndexes
  expect(await indexesOf(tables.programs)).toEqual({
    byIssuer: {
      keys: ['issuerId HASH', 'createdAt RANGE'],
      projection: 'ALL',
      include: [],
      status: 'ACTIVE',
    },
    [current.indexName]: expected(current),
  })
})

it('adds byProgramSlot to a grants table made by the previous version, and npm start gives its grants their slot', async () => {
  const tables = tablesFor('grants-upgrade')
  await dynamodb.send(
    new CreateTableCommand({
      TableName: tables.grants,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'grantId', AttributeType: 'S' },
        { AttributeName: 'programId', AttributeType: 'S' },
        { AttributeName: 'createdAt', AttributeType: 'S' },
      ],
      KeySchema: [{ AttributeName: 'grantId', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byProgram',
          KeySchema: [
            { AttributeName: 'programId', KeyType: 'HASH' },
            { AttributeName: 'createdAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  )
  // A grant as the previous version wrote it: no programSlot.
  const grant = {
    grantId: newId('grant'),
    programId: newId('program'),
    issuerId: newId('issuer'),
    mode: 'TEST',
    recipient: { email: 'ann@example.com' },
    reason: 'Kept across the upgrade',
    amount: 1,
    status: 'reserved',
    createdAt: new Date().toISOString(),
    requestHash: 'a'.repeat(64),
  }
  await documentClient.send(new PutCommand({ TableName: tables.grants, Item: grant }))

  expect(await ensureTables(dynamodb, tables)).not.toContain(tables.grants)
  // Every current index is added (locally, in one go: DynamoDB Local has no CloudFormation limit).
  const [legacy] = TABLES.grants.legacyIndexes
  expect(await indexesOf(tables.grants)).toEqual({
    [legacy.indexName]: expected(legacy),
    ...Object.fromEntries(
      TABLES.grants.globalSecondaryIndexes.map((index) => [index.indexName, expected(index)]),
    ),
  })

  // What bin/local-server.ts does after ensureTables.
  const listed = () =>
    new DynamoDbGrantReads(documentClient, tables).listGrants({
      programId: grant.programId,
      limit: 10,
    })
  expect((await listed()).items).toEqual([])
  expect(await new DynamoDbAdminStore(documentClient, tables).backfillGrantSlots()).toMatchObject({
    updated: 1,
  })
  expect((await listed()).items).toEqual([
    { ...grant, programSlot: grantListSlot(grant.programId, grant.grantId) },
  ])
})
