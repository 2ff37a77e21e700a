import {
  type AttributeDefinition,
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb'
import { STREAMS } from '../functions/consumers'
import { deployedIndexes, type IndexSchema, TABLES, type TableKey } from '../functions/table-schema'

const attributeDefinitions = (keys: { name: string; type: 'S' | 'N' }[]): AttributeDefinition[] => [
  ...new Map(
    keys.map((k) => [k.name, { AttributeName: k.name, AttributeType: k.type }] as const),
  ).values(),
]

const indexKeys = (index: IndexSchema) => [
  index.partitionKey,
  ...(index.sortKey ? [index.sortKey] : []),
]

const toIndex = (index: IndexSchema): GlobalSecondaryIndex => ({
  IndexName: index.indexName,
  KeySchema: [
    { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
    ...(index.sortKey ? [{ AttributeName: index.sortKey.name, KeyType: 'RANGE' as const }] : []),
  ],
  Projection:
    index.projection.type === 'INCLUDE'
      ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection.nonKeyAttributes] }
      : { ProjectionType: index.projection.type },
})

/**
 * Creates whichever of the service's tables do not exist yet, from the shared schemas, and adds
 * the indexes a table made by an earlier version lacks (a `.local/dynamodb` kept across an
 * upgrade). Legacy indexes are never created, and left alone where they exist.
 */
export const ensureTables = async (
  client: DynamoDBClient,
  names: Record<TableKey, string>,
): Promise<string[]> => {
  const existing = new Set<string>()
  let start: string | undefined
  do {
    const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }))
    for (const name of page.TableNames ?? []) existing.add(name)
    start = page.LastEvaluatedTableName
  } while (start)

  const created: string[] = []
  for (const [key, schema] of Object.entries(TABLES) as [TableKey, (typeof TABLES)[TableKey]][]) {
    const name = names[key]
    // The indexes a plain `cdk deploy` builds (never the legacy ones).
    const indexes = deployedIndexes(key)
    const stream = STREAMS[key]
    if (existing.has(name)) {
      await addMissingIndexes(client, name, indexes)
      if (stream !== undefined) await enableStream(client, name, stream)
      continue
    }
    try {
      await client.send(
        new CreateTableCommand({
          TableName: name,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: attributeDefinitions([
            schema.partitionKey,
            ...('sortKey' in schema ? [schema.sortKey] : []),
            ...indexes.flatMap(indexKeys),
          ]),
          KeySchema: [
            { AttributeName: schema.partitionKey.name, KeyType: 'HASH' },
            ...('sortKey' in schema
              ? [{ AttributeName: schema.sortKey.name, KeyType: 'RANGE' as const }]
              : []),
          ],
          // DynamoDB refuses an empty index list: leave the property out instead.
          GlobalSecondaryIndexes: indexes.length === 0 ? undefined : indexes.map(toIndex),
          // The tables whose stream a consumer reads (functions/consumers.ts: grants -> GrantStream, GrantFigures).
          StreamSpecification:
            stream === undefined ? undefined : { StreamEnabled: true, StreamViewType: stream },
        }),
      )
    } catch (error) {
      // The SDK retried an attempt that timed out on a loaded machine after DynamoDB Local had
      // created the table: it was not there before this call, so it counts as created.
      if (!(error instanceof ResourceInUseException)) throw error
    }
    created.push(name)
  }
  return created
}

/**
 * A table kept in `.local/dynamodb` from before streams gets its stream (a table whose stream has
 * another view type gets it replaced: DynamoDB changes a view type only by disabling first).
 */
const enableStream = async (
  client: DynamoDBClient,
  name: string,
  viewType: 'NEW_AND_OLD_IMAGES',
) => {
  const current = (await client.send(new DescribeTableCommand({ TableName: name }))).Table
    ?.StreamSpecification
  if (current?.StreamEnabled && current.StreamViewType === viewType) return
  if (current?.StreamEnabled) {
    await client.send(
      new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: false } }),
    )
  }
  await client.send(
    new UpdateTableCommand({
      TableName: name,
      StreamSpecification: { StreamEnabled: true, StreamViewType: viewType },
    }),
  )
}

/** One index per UpdateTable, as DynamoDB requires, each waited for until it is ACTIVE. */
const addMissingIndexes = async (
  client: DynamoDBClient,
  name: string,
  indexes: readonly IndexSchema[],
) => {
  const describe = async () =>
    (await client.send(new DescribeTableCommand({ TableName: name }))).Table
      ?.GlobalSecondaryIndexes ?? []
  const present = new Set((await describe()).map((i) => i.IndexName))
  for (const index of indexes) {
    if (present.has(index.indexName)) continue
    await client.send(
      new UpdateTableCommand({
        TableName: name,
        AttributeDefinitions: attributeDefinitions(indexKeys(index)),
        GlobalSecondaryIndexUpdates: [{ Create: toIndex(index) }],
      }),
    )
    for (let i = 0; ; i++) {
      const status = (await describe()).find((g) => g.IndexName === index.indexName)?.IndexStatus
      if (status === 'ACTIVE') break
      if (i >= 300) throw new Error(`Index ${index.indexName} of ${name} did not become ACTIVE`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}
