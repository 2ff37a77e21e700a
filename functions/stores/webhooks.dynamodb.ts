import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { poolLowKey } from '../domain/webhooks'
import { conditional } from './kernel/conditional'
import { DynamoDbWebhookMessages } from './webhook-messages.dynamodb'
import type {
  PoolLowMark,
  WebhookDeliveryStore,
  WebhookEndpointStore,
  WebhookMessageStore,
} from './webhooks.store'

type Options = { signal?: AbortSignal | undefined }

export {
  decodeMessageCursor,
  encodeMessageCursor,
  InvalidMessageCursor,
} from './webhook-messages.dynamodb'
export type { EndpointOutcome, PoolLowMark } from './webhooks.store'

/**
 * The webhooks table (functions/table-schema.ts `webhooks`): an issuer's endpoints, their
 * messages with the delivery log, and programs' pool-low marks. Outcomes are returned (as
 * members.dynamodb.ts's); only DynamoDB's own failures are thrown (a throttled transaction as
 * StoreUnavailable). Every read is strongly consistent: a change made a moment ago (an endpoint
 * disabled, a secret rotated) is what the next delivery sees.
 * The sender's own bookkeeping (core/webhook-sender.ts) is the third interface,
 * WebhookDeliveryStore (webhooks.store.ts).
 */
export class DynamoDbWebhookStore
  extends DynamoDbWebhookMessages
  implements WebhookEndpointStore, WebhookMessageStore, WebhookDeliveryStore
{
  // ---- pool-low marks ----

  /**
   * Marks a program's pool as low (one mark per crossing): `fired` when this call put the mark,
   * else `already` with the mark that stands (the crossing was seen before; its `sent` says
   * whether its event went out).
   */
  async markPoolLow(
    input: { programId: string; at: string; remaining: number; threshold: number },
    { signal }: Options = {},
  ): Promise<{ outcome: 'fired'; mark: PoolLowMark } | { outcome: 'already'; mark: PoolLowMark }> {
    const mark: PoolLowMark = { ...poolLowKey(input.programId), ...input }
    if (
      await conditional(
        this.client.send(
          new PutCommand({
            TableName: this.table,
            Item: mark,
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
          { abortSignal: signal },
        ),
      )
    ) {
      return { outcome: 'fired', mark }
    }
    const standing = await this.getItem<PoolLowMark>(poolLowKey(input.programId), signal)
    // Cleared between the put and the read (the pool refilled): this crossing stands as ours.
    if (standing === undefined) return this.markPoolLow(input, { signal })
    return { outcome: 'already', mark: standing }
  }

  /** Notes that the mark's event was fanned out (only that mark: a newer crossing is left alone). */
  async markPoolLowSent(programId: string, at: string, { signal }: Options = {}) {
    await conditional(
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: poolLowKey(programId),
          UpdateExpression: 'SET sent = :true',
          ConditionExpression: '#at = :at',
          ExpressionAttributeNames: { '#at': 'at' },
          ExpressionAttributeValues: { ':true': true, ':at': at },
        }),
        { abortSignal: signal },
      ),
    )
  }

  /** Re-arms a program's pool-low event (the pool is above the threshold again): true if a mark was there. */
  async clearPoolLow(programId: string, { signal }: Options = {}) {
    const { Attributes } = await this.client.send(
      new DeleteCommand({
        TableName: this.table,
        Key: poolLowKey(programId),
        ReturnValues: 'ALL_OLD',
      }),
      { abortSignal: signal },
    )
    return Attributes !== undefined
  }
}
