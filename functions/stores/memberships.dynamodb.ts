import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb'
import type { MembershipRecord } from '../domain/people'
import { INDEX } from '../table-schema'
import type { CallOptions } from './grants.store'
import type { MembershipReader } from './memberships.store'

/** Reads of the memberships table that every management request makes. */
export class DynamoDbMembershipReader implements MembershipReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { memberships: string },
  ) {}

  /**
   * The person's membership of one issuer, strongly consistent: a removal or a role change made a
   * moment ago is what this request sees.
   */
  async get(
    issuerId: string,
    sub: string,
    { signal }: CallOptions = {},
  ): Promise<MembershipRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tables.memberships,
        Key: { issuerId, sub },
        ConsistentRead: true,
      }),
      { abortSignal: signal },
    )
    return Item as MembershipRecord | undefined
  }

  /**
   * Every issuer the person belongs to, through the `bySub` index (eventually consistent: a
   * membership added a moment ago may show a little later; the issuer's own routes read the
   * table itself and never lag).
   */
  async listForPerson(
    sub: string,
    { signal }: CallOptions = {},
  ): Promise<Pick<MembershipRecord, 'issuerId' | 'sub' | 'role' | 'email'>[]> {
    const items: Pick<MembershipRecord, 'issuerId' | 'sub' | 'role' | 'email'>[] = []
    let start: Record<string, unknown> | undefined
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tables.memberships,
          IndexName: INDEX.membershipsBySub,
          KeyConditionExpression: '#sub = :sub',
          ExpressionAttributeNames: { '#sub': 'sub' },
          ExpressionAttributeValues: { ':sub': sub },
          ExclusiveStartKey: start,
        }),
        { abortSignal: signal },
      )
      items.push(...((page.Items ?? []) as typeof items))
      start = page.LastEvaluatedKey
    } while (start)
    return items
  }
}
