import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { decodeCursor, encodeCursor } from '../domain/page-cursor'
import {
  messageIdFloor,
  messageKey,
  WEBHOOK_MESSAGE_ID,
  type WebhookAttempt,
  type WebhookMessageRecord,
  type WebhookMessageStatus,
} from '../domain/webhooks'
import { conditional } from './kernel/conditional'
import { queryPage } from './kernel/query-page'
import { sendWith } from './paging'
import { DynamoDbWebhookEndpoints } from './webhook-endpoints.dynamodb'

type Options = { signal?: AbortSignal | undefined }

/**
 * A page cursor of an endpoint's messages: the last message's id, base64url. Opaque to callers;
 * the endpoint is not in it (the query names it), so a cursor is only ever a position.
 */
export const encodeMessageCursor = (messageId: string) => encodeCursor(messageId)

/** The message id a cursor stands for, or undefined when it is not one this store made. */
export const decodeMessageCursor = (cursor: string): string | undefined =>
  decodeCursor(cursor, [WEBHOOK_MESSAGE_ID], 80)?.[0]

/** A cursor that decodeMessageCursor refuses: the caller should have checked it (a 400). */
export class InvalidMessageCursor extends Error {
  override readonly name = 'InvalidMessageCursor'
}

/** The webhooks table's messages, with their delivery log: the endpoints' store, and more. */
export class DynamoDbWebhookMessages extends DynamoDbWebhookEndpoints {
  async putMessage(message: WebhookMessageRecord, { signal }: Options = {}) {
    const written = await conditional(
      this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...message, ...messageKey(message.endpointId, message.messageId) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
        { abortSignal: signal },
      ),
    )
    return written ? ('done' as const) : ('exists' as const)
  }

  async getMessage(endpointId: string, messageId: string, { signal }: Options = {}) {
    return this.getItem<WebhookMessageRecord>(messageKey(endpointId, messageId), signal)
  }

  async recordAttempt(
    endpointId: string,
    messageId: string,
    attempt: WebhookAttempt,
    next: { status: WebhookMessageStatus; nextAttemptAt?: string },
    { signal }: Options = {},
  ): Promise<'done' | 'missing'> {
    const scheduled = next.nextAttemptAt !== undefined
    const written = await conditional(
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: messageKey(endpointId, messageId),
          // The attempt's claim (claimAttempt) ends with its record.
          UpdateExpression: `SET attempts = list_append(if_not_exists(attempts, :none), :attempt), #status = :status${
            scheduled
              ? ', nextAttemptAt = :next REMOVE claimedUntil'
              : ' REMOVE nextAttemptAt, claimedUntil'
          }`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':none': [],
            ':attempt': [attempt],
            ':status': next.status,
            ...(scheduled ? { ':next': next.nextAttemptAt } : {}),
          },
        }),
        { abortSignal: signal },
      ),
    )
    return written ? 'done' : 'missing'
  }

  /**
   * Claims the automatic attempt a message expects, so that two copies of one delivery (SQS
   * delivers at least once; a repeated event sends its delivery again) make one attempt: on
   * condition that it is pending, unclaimed (or its claim ran out: a sender that died), and still
   * expects this attempt (`nextAttemptAt`, or no attempt yet for the first). The claim lasts until
   * `until` (ISO) or the attempt's record. `claimed` or `taken`.
   */
  async claimAttempt(
    endpointId: string,
    messageId: string,
    input: { nextAttemptAt: string | undefined; now: string; until: string },
    { signal }: Options = {},
  ): Promise<'claimed' | 'taken'> {
    const first = input.nextAttemptAt === undefined
    const written = await conditional(
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: messageKey(endpointId, messageId),
          UpdateExpression: 'SET claimedUntil = :until',
          ConditionExpression: `#status = :pending AND (attribute_not_exists(claimedUntil) OR claimedUntil <= :now) AND ${
            first
              ? '(attribute_not_exists(attempts) OR size(attempts) = :zero)'
              : 'nextAttemptAt = :expected'
          }`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':pending': 'pending',
            ':now': input.now,
            ':until': input.until,
            ...(first ? { ':zero': 0 } : { ':expected': input.nextAttemptAt }),
          },
        }),
        { abortSignal: signal },
      ),
    )
    return written ? 'claimed' : 'taken'
  }

  /**
   * A pending message whose endpoint is disabled or deleted when its attempt is due: `failed`, no
   * attempt recorded, no next one. A message already settled is left as it is.
   */
  async failMessage(endpointId: string, messageId: string, { signal }: Options = {}) {
    const written = await conditional(
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: messageKey(endpointId, messageId),
          UpdateExpression: 'SET #status = :failed REMOVE nextAttemptAt',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':failed': 'failed', ':pending': 'pending' },
        }),
        { abortSignal: signal },
      ),
    )
    return written ? ('done' as const) : ('unchanged' as const)
  }

  /**
   * A page of an endpoint's messages: newest first (oldest first with `oldestFirst`), from `since`
   * on (message ids start with the event's time, so `since` is a key condition), after `cursor`.
   * One more than `limit` is read so that a full last page promises no empty next one. Throws
   * InvalidMessageCursor for a cursor this store did not make (check with decodeMessageCursor).
   */
  async listMessages(
    endpointId: string,
    query: { limit: number; cursor?: string; since?: string; oldestFirst?: boolean },
    { signal }: Options = {},
  ): Promise<{ messages: WebhookMessageRecord[]; next?: string }> {
    const { limit, cursor, since, oldestFirst = false } = query
    const after = cursor === undefined ? undefined : decodeMessageCursor(cursor)
    if (cursor !== undefined && after === undefined) {
      throw new InvalidMessageCursor('Not a cursor of this listing')
    }
    const floor = since === undefined ? undefined : Date.parse(since)
    if (floor !== undefined && Number.isNaN(floor)) throw new RangeError(`since: not a time`)
    const pk = messageKey(endpointId, '').pk
    const { items, last } = await queryPage<WebhookMessageRecord>(
      sendWith(this.client, signal),
      {
        TableName: this.table,
        KeyConditionExpression: floor === undefined ? 'pk = :pk' : 'pk = :pk AND sk >= :floor',
        ExpressionAttributeValues: {
          ':pk': pk,
          ...(floor === undefined ? {} : { ':floor': messageIdFloor(floor) }),
        },
        ScanIndexForward: oldestFirst,
        ConsistentRead: true,
        ExclusiveStartKey: after === undefined ? undefined : messageKey(endpointId, after),
      },
      limit,
    )
    return last ? { messages: items, next: encodeMessageCursor(last.sk) } : { messages: items }
  }
}
