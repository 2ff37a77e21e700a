import {
  type AttributeDefinition,
  CreateTableCommand,
  type DynamoDBClient,
  ListTablesCommand,
} from '@aws-sdk/client-dynamodb'
import { type IndexSchema, TABLES, type TableKey } from '../functions/shared/table-schema'

/** Creates whichever of the service's tables do not exist yet, from the shared key schemas. */
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
    if (existing.has(name)) continue
    const attributes = new Map<string, AttributeDefinition>()
    const add = (a: { name: string; type: 'S' | 'N' }) =>
      attributes.set(a.name, { AttributeName: a.name, AttributeType: a.type })
    add(schema.partitionKey)
    const indexes: readonly IndexSchema[] = schema.globalSecondaryIndexes
    for (const index of indexes) {
      add(index.partitionKey)
      if (index.sortKey) add(index.sortKey)
    }
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...attributes.values()],
        KeySchema: [{ AttributeName: schema.partitionKey.name, KeyType: 'HASH' }],
        // DynamoDB refuses an empty index list: leave the property out instead.
        GlobalSecondaryIndexes:
          indexes.length === 0
            ? undefined
            : indexes.map((index) => ({
                IndexName: index.indexName,
                KeySchema: [
                  { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
                  ...(index.sortKey
                    ? [{ AttributeName: index.sortKey.name, KeyType: 'RANGE' as const }]
                    : []),
                ],
                Projection: { ProjectionType: 'ALL' },
              })),
      }),
    )
    created.push(name)
  }
  return created
}
