import { randomBytes } from 'node:crypto'
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb'
import {
  INBOX_KEEP_DAYS,
  type InboxMessage,
  type InboxPutOutcome,
  type InboxStore,
} from './inbox.store'
import { conditional } from './kernel/conditional'
import { queryPage } from './kernel/query-page'
import type { CallOptions } from './members.store'
import { sendWith } from './paging'

/** The TEST inbox on DynamoDB: one item per message, partition per issuer. */
export class DynamoDbInboxStore implements InboxStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { inbox: string },
  ) {}

  async put(
    message: Omit<InboxMessage, 'messageId' | 'createdAt' | 'purgeAt' | 'mode'>,
    now: number,
    { signal }: CallOptions = {},
  ): Promise<InboxPutOutcome> {
    const createdAt = new Date(now).toISOString()
    const item: InboxMessage = {
      ...message,
      mode: 'TEST',
      messageId: `${createdAt}#${randomBytes(4).toString('hex')}`,
      createdAt,
      purgeAt: Math.floor(now / 1000) + INBOX_KEEP_DAYS * 24 * 60 * 60,
    }
    const written = await conditional(
      this.client.send(
        new PutCommand({
          TableName: this.tables.inbox,
          Item: item,
          // A new id: never overwrite a message (two in the same millisecond with the same suffix).
          ConditionExpression: 'attribute_not_exists(messageId)',
        }),
        { abortSignal: signal },
      ),
    )
    return written ? { outcome: 'done', message: item } : { outcome: 'clash' }
  }

  async list(
    { issuerId, limit, after }: { issuerId: string; limit: number; after?: string | undefined },
    { signal }: CallOptions = {},
  ): Promise<{ items: InboxMessage[]; last?: string }> {
    const { items, last } = await queryPage<InboxMessage>(
      sendWith(this.client, signal),
      {
        TableName: this.tables.inbox,
        KeyConditionExpression: 'issuerId = :issuer',
        ExpressionAttributeValues: { ':issuer': issuerId },
        ScanIndexForward: false,
        ConsistentRead: true,
        ExclusiveStartKey: after === undefined ? undefined : { issuerId, messageId: after },
      },
      limit,
    )
    return last ? { items, last: last.messageId } : { items }
  }
}
