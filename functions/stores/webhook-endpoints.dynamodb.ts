import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import type { Config } from '../config'
import type { AuditEntry } from '../domain/people'
import {
  type EndpointDisabledReason,
  endpointCountKey,
  endpointKey,
  type WebhookEndpointRecord,
} from '../domain/webhooks'
import { auditPut } from './audit'
import { conditional } from './kernel/conditional'
import { type TransactItem, transact } from './kernel/transact'
import { queryAll, sendWith } from './paging'
import { throttled } from './store-errors'
import type { EndpointOutcome } from './webhooks.store'

type Options = { signal?: AbortSignal | undefined }
type TransactItems = TransactItem[]

/**
 * The webhooks table's endpoints (functions/table-schema.ts `webhooks`): an issuer's
 * endpoints, created, replaced and deleted with their audit entries, and the sender's bookkeeping
 * on them. The messages: webhook-messages.dynamodb.ts; the whole store: webhooks.dynamodb.ts.
 */
export class DynamoDbWebhookEndpoints {
  protected readonly table: string
  protected readonly audit: string

  constructor(
    protected readonly client: DynamoDBDocumentClient,
    tables: Pick<Config['tables'], 'webhooks' | 'audit'>,
  ) {
    this.table = tables.webhooks
    this.audit = tables.audit
  }

  async listEndpoints(issuerId: string, { signal }: Options = {}) {
    const items = await queryAll<WebhookEndpointRecord>(sendWith(this.client, signal), {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': endpointKey(issuerId, '').pk },
      ConsistentRead: true,
    })
    // Ids are random: oldest first is by creation time (then id, for a stable order).
    return items.sort(
      (a, b) => a.createdAt.localeCompare(b.createdAt) || a.endpointId.localeCompare(b.endpointId),
    )
  }

  async getEndpoint(issuerId: string, endpointId: string, { signal }: Options = {}) {
    return this.getItem<WebhookEndpointRecord>(endpointKey(issuerId, endpointId), signal)
  }

  /** One item of the table, strongly consistent. */
  protected async getItem<T>(Key: { pk: string; sk: string }, signal: AbortSignal | undefined) {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.table, Key, ConsistentRead: true }),
      { abortSignal: signal },
    )
    return Item as T | undefined
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
    const written = await conditional(
      this.client.send(
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
      ),
    )
    return written ? (written.Attributes as WebhookEndpointRecord) : 'missing'
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
