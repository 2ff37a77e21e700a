import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb'
import type { Config } from '../config'
import type { AuditEntry } from '../domain/people'
import {
  type EndpointDisabledReason,
  endpointCountKey,
  endpointKey,
  messageIdFloor,
  messageKey,
  poolLowKey,
  WEBHOOK_MESSAGE_ID,
  type WebhookAttempt,
  type WebhookEndpointRecord,
  type WebhookMessageRecord,
  type WebhookMessageStatus,
} from '../domain/webhooks'
import { auditPut } from './audit'
import { isConditionFailed } from './kernel/dynamodb-errors'
import { type TransactItem, transact } from './kernel/transact'
import { throttled } from './store-errors'
import type { WebhookEndpointStore, WebhookMessageStore } from './webhooks.store'

type Options = { signal?: AbortSignal | undefined }
type TransactItems = TransactItem[]

/**
 * A page cursor of an endpoint's messages: the last message's id, base64url. Opaque to callers;
 * the endpoint is not in it (the query names it), so a cursor is only ever a position.
 */
export const encodeMessageCursor = (messageId: string) =>
  Buffer.from(messageId, 'utf8').toString('base64url')

/** The message id a cursor stands for, or undefined when it is not one this store made. */
export const decodeMessageCursor = (cursor: string): string | undefined => {
  if (!/^[A-Za-z0-9_-]{1,80}$/.test(cursor)) return undefined
  const messageId = Buffer.from(cursor, 'base64url').toString('utf8')
  return WEBHOOK_MESSAGE_ID.test(messageId) && encodeMessageCursor(messageId) === cursor
    ? messageId
    : undefined
}

/** A cursor that decodeMessageCursor refuses: the caller should have checked it (a 400). */
export class InvalidMessageCursor extends Error {
  override readonly name = 'InvalidMessageCursor'
}

/**
 * What the sender records of an attempt on the endpoint itself:
 * - `success`: `lastSuccessAt`, and the endpoint is no longer failing (`failingSince` removed);
 * - `failure`: `failingSince` set to this attempt's time unless already set (the first failure
 *   since the last success).
 */
export type EndpointOutcome = { kind: 'success'; at: string } | { kind: 'failure'; at: string }

/** A program's pool-low mark: the crossing it stands for, and whether its event went out. */
export type PoolLowMark = {
  pk: string
  sk: string
  programId: string
  /** When the crossing was seen (ISO): the event's time and part of its id. */
  at: string
  remaining: number
  threshold: number
  /** Set once the event was fanned out: a mark without it is fanned out again (at least once). */
  sent?: true
}

/**
 * The webhooks table (functions/stores/table-schema.ts `webhooks`): an issuer's endpoints, their
 * messages with the delivery log, and programs' pool-low marks. Outcomes are returned (as
 * members.dynamodb.ts's); only DynamoDB's own failures are thrown (a throttled transaction as
 * StoreUnavailable). Every read is strongly consistent: a change made a moment ago (an endpoint
 * disabled, a secret rotated) is what the next delivery sees.
 *
 * Beyond the two interfaces, what the sender (core/webhook-sender.ts) needs: `recordEndpointOutcome`,
 * `disableEndpoint`, `claimAttempt`, `failMessage`, `markPoolLow` / `markPoolLowSent` / `clearPoolLow`.
 */
export class DynamoDbWebhookStore implements WebhookEndpointStore, WebhookMessageStore {
  private readonly table: string
  private readonly audit: string

  constructor(
    private readonly client: DynamoDBDocumentClient,
    tables: Pick<Config['tables'], 'webhooks' | 'audit'>,
  ) {
    this.table = tables.webhooks
    this.audit = tables.audit
  }

  // ---- endpoints ----

  async listEndpoints(issuerId: string, { signal }: Options = {}) {
    const items: WebhookEndpointRecord[] = []
    let start: Record<string, unknown> | undefined
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': endpointKey(issuerId, '').pk },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
        { abortSignal: signal },
      )
      items.push(...((page.Items ?? []) as WebhookEndpointRecord[]))
      start = page.LastEvaluatedKey
    } while (start)
    // Ids are random: oldest first is by creation time (then id, for a stable order).
    return items.sort(
      (a, b) => a.createdAt.localeCompare(b.createdAt) || a.endpointId.localeCompare(b.endpointId),
    )
  }

  async getEndpoint(issuerId: string, endpointId: string, { signal }: Options = {}) {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.table,
        Key: endpointKey(issuerId, endpointId),
        ConsistentRead: true,
      }),
      { abortSignal: signal },
    )
    return Item as WebhookEndpointRecord | undefined
  }

  async createEndpoint(
    endpoint: WebhookEndpointRecord,
    audit: AuditEntry,
    limit: number,
    { signal }: Options = {},
  ): Promise<'done' | 'exists' | 'limit'> {
    const outcome = await this.transact(
      [
        {
          Put: {
            TableName: this.table,
            Item: { ...endpoint, ...endpointKey(endpoint.issuerId, endpoint.endpointId) },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        auditPut(this.audit, audit),
        {
          // The mode's count, on condition that it is under the limit: two creates racing past
          // the use case's read cannot both take the last place.
          Update: {
            TableName: this.table,
            Key: endpointCountKey(endpoint.issuerId, endpoint.mode),
            UpdateExpression: 'ADD #n :one',
            ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit',
            ExpressionAttributeNames: { '#n': 'n' },
            ExpressionAttributeValues: { ':one': 1, ':limit': limit },
          },
        },
      ],
      'creating a webhook endpoint',
      signal,
    )
    if (outcome === 'done') return 'done'
    return outcome.failed === 2 ? 'limit' : 'exists'
  }

  async replaceEndpoint(
    endpoint: WebhookEndpointRecord,
    expectedVersion: number,
    audit: AuditEntry | undefined,
    { signal }: Options = {},
  ): Promise<'done' | 'stale' | 'missing'> {
    const key = endpointKey(endpoint.issuerId, endpoint.endpointId)
    const outcome = await this.transact(
      [
        {
          Put: {
            TableName: this.table,
            Item: { ...endpoint, ...key },
            ConditionExpression: 'attribute_exists(pk) AND #version = :expected',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':expected': expectedVersion },
          },
        },
        ...(audit === undefined ? [] : [auditPut(this.audit, audit)]),
      ],
      'changing a webhook endpoint',
      signal,
    )
    if (outcome === 'done') return 'done'
    // The condition failed: gone, or changed since it was read.
    const now = await this.getEndpoint(endpoint.issuerId, endpoint.endpointId, { signal })
    return now === undefined ? 'missing' : 'stale'
  }

  async deleteEndpoint(
    { issuerId, endpointId, mode }: Pick<WebhookEndpointRecord, 'issuerId' | 'endpointId' | 'mode'>,
    audit: AuditEntry,
    { signal }: Options = {},
  ): Promise<'done' | 'missing'> {
    // Its messages stay until their TTL (purgeAt, 30 days): no delivery is made for them (the
    // sender finds no endpoint) and nobody can list them without the endpoint.
    const outcome = await this.transact(
      [
        {
          Delete: {
            TableName: this.table,
            Key: endpointKey(issuerId, endpointId),
            ConditionExpression: 'attribute_exists(pk) AND #mode = :mode',
            ExpressionAttributeNames: { '#mode': 'mode' },
            ExpressionAttributeValues: { ':mode': mode },
          },
        },
        auditPut(this.audit, audit),
        {
          Update: {
            TableName: this.table,
            Key: endpointCountKey(issuerId, mode),
            UpdateExpression: 'ADD #n :less',
            ExpressionAttributeNames: { '#n': 'n' },
            ExpressionAttributeValues: { ':less': -1 },
          },
        },
      ],
      'deleting a webhook endpoint',
      signal,
    )
    return outcome === 'done' ? 'done' : 'missing'
  }

  /**
   * The sender's bookkeeping after an attempt (EndpointOutcome), on condition that the endpoint
   * still exists; bumps `version` as every write does. Answers the endpoint as it now stands
   * (its `failingSince` tells the sender how long it has been failing), or `missing`.
   */
  async recordEndpointOutcome(
    issuerId: string,
    endpointId: string,
    outcome: EndpointOutcome,
    { signal }: Options = {},
  ): Promise<WebhookEndpointRecord | 'missing'> {
    const update =
      outcome.kind === 'success'
        ? 'SET lastSuccessAt = :at, #version = #version + :one REMOVE failingSince'
        : 'SET failingSince = if_not_exists(failingSince, :at), #version = #version + :one'
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: endpointKey(issuerId, endpointId),
          UpdateExpression: update,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':at': outcome.at, ':one': 1 },
          ReturnValues: 'ALL_NEW',
        }),
        { abortSignal: signal },
      )
      return Attributes as WebhookEndpointRecord
    } catch (error) {
      if (isConditionFailed(error)) return 'missing'
      throw error
    }
  }

  /**
   * Disables an endpoint for `reason` (the sender's: `gone` after a 410, `failing` after days of
   * failures), on condition that it exists and is enabled, and, for `failing`, that it is still
   * failing since `failingSince` (an endpoint re-enabled or succeeding meanwhile is left alone).
   * `done`: this call disabled it (so only one caller e-mails its owners); `unchanged`: it was
   * already disabled, gone, or no longer failing since then.
   */
  /**
   * The sender turns an endpoint off (410 Gone, or failing for days), with the audit entry that
   * says so, in one transaction; on condition that it is on (and, for `failingSince`, still failing
   * since then: a success or a re-enable meanwhile wins): else `unchanged`, nothing written.
   */
  async disableEndpoint(
    issuerId: string,
    endpointId: string,
    input: { reason: EndpointDisabledReason; at: string; failingSince?: string; audit: AuditEntry },
    { signal }: Options = {},
  ): Promise<'done' | 'unchanged'> {
    const failing = input.failingSince !== undefined
    const outcome = await this.transact(
      [
        {
          Update: {
            TableName: this.table,
            Key: endpointKey(issuerId, endpointId),
            UpdateExpression:
              'SET enabled = :false, disabledReason = :reason, disabledAt = :at, updatedAt = :at, #version = #version + :one',
            ConditionExpression: `attribute_exists(pk) AND enabled = :true${failing ? ' AND failingSince = :since' : ''}`,
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: {
              ':false': false,
              ':true': true,
              ':reason': input.reason,
              ':at': input.at,
              ':one': 1,
              ...(failing ? { ':since': input.failingSince } : {}),
            },
          },
        },
        auditPut(this.audit, input.audit),
      ],
      'disabling a webhook endpoint',
      signal,
    )
    return outcome === 'done' ? 'done' : 'unchanged'
  }

  // ---- messages ----

  async putMessage(message: WebhookMessageRecord, { signal }: Options = {}) {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...message, ...messageKey(message.endpointId, message.messageId) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
        { abortSignal: signal },
      )
      return 'done' as const
    } catch (error) {
      if (isConditionFailed(error)) return 'exists' as const
      throw error
    }
  }

  async getMessage(endpointId: string, messageId: string, { signal }: Options = {}) {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.table,
        Key: messageKey(endpointId, messageId),
        ConsistentRead: true,
      }),
      { abortSignal: signal },
    )
    return Item as WebhookMessageRecord | undefined
  }

  async recordAttempt(
    endpointId: string,
    messageId: string,
    attempt: WebhookAttempt,
    next: { status: WebhookMessageStatus; nextAttemptAt?: string },
    { signal }: Options = {},
  ): Promise<'done' | 'missing'> {
    const scheduled = next.nextAttemptAt !== undefined
    try {
      await this.client.send(
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
      )
      return 'done'
    } catch (error) {
      if (isConditionFailed(error)) return 'missing'
      throw error
    }
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
    try {
      await this.client.send(
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
      )
      return 'claimed'
    } catch (error) {
      if (isConditionFailed(error)) return 'taken'
      throw error
    }
  }

  /**
   * A pending message whose endpoint is disabled or deleted when its attempt is due: `failed`, no
   * attempt recorded, no next one. A message already settled is left as it is.
   */
  async failMessage(endpointId: string, messageId: string, { signal }: Options = {}) {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: messageKey(endpointId, messageId),
          UpdateExpression: 'SET #status = :failed REMOVE nextAttemptAt',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':failed': 'failed', ':pending': 'pending' },
        }),
        { abortSignal: signal },
      )
      return 'done' as const
    } catch (error) {
      if (isConditionFailed(error)) return 'unchanged' as const
      throw error
    }
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
    const messages: WebhookMessageRecord[] = []
    let start: Record<string, unknown> | undefined =
      after === undefined ? undefined : messageKey(endpointId, after)
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: floor === undefined ? 'pk = :pk' : 'pk = :pk AND sk >= :floor',
          ExpressionAttributeValues: {
            ':pk': pk,
            ...(floor === undefined ? {} : { ':floor': messageIdFloor(floor) }),
          },
          ScanIndexForward: oldestFirst,
          ConsistentRead: true,
          Limit: limit + 1 - messages.length,
          ExclusiveStartKey: start,
        }),
        { abortSignal: signal },
      )
      messages.push(...((page.Items ?? []) as WebhookMessageRecord[]))
      start = page.LastEvaluatedKey
    } while (start !== undefined && messages.length <= limit)
    if (messages.length <= limit) return { messages }
    const shown = messages.slice(0, limit)
    return { messages: shown, next: encodeMessageCursor((shown.at(-1) as WebhookMessageRecord).sk) }
  }

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
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: mark,
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
        { abortSignal: signal },
      )
      return { outcome: 'fired', mark }
    } catch (error) {
      if (!isConditionFailed(error)) throw error
    }
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.table,
        Key: poolLowKey(input.programId),
        ConsistentRead: true,
      }),
      { abortSignal: signal },
    )
    // Cleared between the put and the read (the pool refilled): this crossing stands as ours.
    if (Item === undefined) return this.markPoolLow(input, { signal })
    return { outcome: 'already', mark: Item as PoolLowMark }
  }

  /** Notes that the mark's event was fanned out (only that mark: a newer crossing is left alone). */
  async markPoolLowSent(programId: string, at: string, { signal }: Options = {}) {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: poolLowKey(programId),
          UpdateExpression: 'SET sent = :true',
          ConditionExpression: '#at = :at',
          ExpressionAttributeNames: { '#at': 'at' },
          ExpressionAttributeValues: { ':true': true, ':at': at },
        }),
        { abortSignal: signal },
      )
    } catch (error) {
      if (!isConditionFailed(error)) throw error
    }
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

  /** One transaction: `done`, or the index of the first item whose condition failed. */
  private async transact(
    items: TransactItems,
    what: string,
    signal: AbortSignal | undefined,
  ): Promise<'done' | { failed: number }> {
    const outcome = await transact(this.client, items, { signal })
    if (outcome.kind === 'done') return 'done'
    if (outcome.kind === 'failed') return { failed: outcome.index }
    if (outcome.reason === 'throttled') throw throttled(what, outcome.cause)
    // A conflict with another transaction: nothing was written; the caller's retry (or its 503)
    // decides.
    throw outcome.cause
  }
}
