import { randomBytes } from 'node:crypto'
import { type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb'
import {
  INBOX_KEEP_DAYS,
  type InboxMessage,
  type InboxPutOutcome,
  type InboxStore,
} from './inbox.store'
import { isConditionFailed } from './kernel/dynamodb-errors'
import type { CallOptions } from './members.store'

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
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tables.inbox,
          Item: item,
          // A new id: never overwrite a message (two in the same millisecond with the same suffix).
          ConditionExpression: 'attribute_not_exists(messageId)',
        }),
        { abortSignal: signal },
      )
    } catch (error) {
      if (isConditionFailed(error)) return { outcome: 'clash' }
      throw error
    }
    return { outcome: 'done', message: item }
  }

  async list(
    { issuerId, limit, after }: { issuerId: string; limit: number; after?: string | undefined },
    { signal }: CallOptions = {},
  ): Promise<{ items: InboxMessage[]; last?: string }> {
    const items: InboxMessage[] = []
    let start: Record<string, unknown> | undefined =
      after === undefined ? undefined : { issuerId, messageId: after }
    // One more than the page, so `last` is set only when another page exists.
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tables.inbox,
          KeyConditionExpression: 'issuerId = :issuer',
          ExpressionAttributeValues: { ':issuer': issuerId },
          ScanIndexForward: false,
          ConsistentRead: true,
          Limit: limit + 1 - items.length,
          ExclusiveStartKey: start,
        }),
        { abortSignal: signal },
      )
      items.push(...((page.Items ?? []) as InboxMessage[]))
      start = page.LastEvaluatedKey
    } while (start !== undefined && items.length <= limit)
    if (items.length <= limit) return { items }
    const shown = items.slice(0, limit)
    return { items: shown, last: (shown[shown.length - 1] as InboxMessage).messageId }
  }
}
