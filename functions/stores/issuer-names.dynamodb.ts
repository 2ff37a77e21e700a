import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb'

/** How long a process trusts an issuer's name it has read (a rename shows in new mail after that). */
const ISSUER_NAME_TTL_MS = 5 * 60_000

/**
 * The issuer's name, read with one GetItem and kept a few minutes per process: a batch of offers
 * from one issuer reads it once. Absent, or unreadable (the read failing never stops a mail): the
 * program's name (`unreadable` hears why).
 */
export const issuerNames = (
  client: DynamoDBDocumentClient,
  table: string,
  clock: () => number,
  unreadable: (issuerId: string, error: unknown) => void = () => {},
) => {
  const known = new Map<string, { name: string | undefined; at: number }>()
  return async (issuerId: string): Promise<string | undefined> => {
    const hit = known.get(issuerId)
    if (hit !== undefined && clock() - hit.at < ISSUER_NAME_TTL_MS) return hit.name
    let name: string | undefined
    try {
      const { Item } = await client.send(
        new GetCommand({
          TableName: table,
          Key: { issuerId },
          ProjectionExpression: '#name',
          ExpressionAttributeNames: { '#name': 'name' },
        }),
      )
      name = typeof Item?.name === 'string' && Item.name.trim() !== '' ? Item.name : undefined
    } catch (error) {
      // Kept as absent for the TTL too: not read again for every mail.
      unreadable(issuerId, error)
    }
    known.set(issuerId, { name, at: clock() })
    return name
  }
}
