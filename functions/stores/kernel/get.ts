import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb'

/**
 * One item by its key, strongly consistent: the read a store makes before it decides (a batch, a
 * grant, a program's head). Undefined when there is none; the caller says what the item is.
 */
export const getItem = async (
  client: DynamoDBDocumentClient,
  table: string,
  key: Record<string, unknown>,
  { signal }: { signal?: AbortSignal | undefined } = {},
): Promise<Record<string, unknown> | undefined> => {
  const { Item } = await client.send(
    new GetCommand({ TableName: table, Key: key, ConsistentRead: true }),
    { abortSignal: signal },
  )
  return Item
}
