import { DynamoDbAdminBase } from './admin-writes.dynamodb'
import type { ChangeOptions } from './changes.store'
import type { IssuerRecord, IssuerStore } from './issuers.store'
import { batchGetAll } from './kernel/batch'
import { scanAll } from './paging'
import { StoreUnavailable } from './store-errors'

/** The issuers table: a handful of items, read whole. */
export class DynamoDbIssuerStore extends DynamoDbAdminBase implements IssuerStore {
  async createIssuer(issuer: IssuerRecord, options?: ChangeOptions): Promise<void> {
    const refused = await this.transact(
      [
        {
          Put: {
            TableName: this.tables.issuers,
            Item: issuer,
            ConditionExpression: 'attribute_not_exists(issuerId)',
          },
        },
      ],
      options,
    )
    if (refused) {
      throw new StoreUnavailable('clash', `Issuer id ${issuer.issuerId} exists already.`)
    }
  }

  listIssuers(): Promise<IssuerRecord[]> {
    return scanAll<IssuerRecord>(this.send, {
      TableName: this.tables.issuers,
      ConsistentRead: true,
    })
  }

  async issuerNames(issuerIds: string[]): Promise<Map<string, string>> {
    const issuers = await batchGetAll<Pick<IssuerRecord, 'issuerId' | 'name'>>(
      this.client,
      this.tables.issuers,
      [...new Set(issuerIds)].map((issuerId) => ({ issuerId })),
      {
        ...this.pacing(),
        projection: {
          ProjectionExpression: 'issuerId, #name',
          ExpressionAttributeNames: { '#name': 'name' },
        },
      },
    )
    return new Map(issuers.map((i) => [i.issuerId, i.name]))
  }
}
