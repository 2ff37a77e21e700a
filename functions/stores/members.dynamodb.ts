import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import type { AuditEntry, MembershipRecord, Role } from '../domain/people'
import { auditPut } from './audit'
import { conditional } from './kernel/conditional'
import { type TransactItem, transact } from './kernel/transact'
import type { AddOutcome, CallOptions, MembersStore, WriteOutcome } from './members.store'
import { DynamoDbMembershipReader } from './memberships.dynamodb'
import { queryAll, sendWith } from './paging'

type TransactItems = TransactItem[]

/**
 * At most this many of a person's other issuers are looked at for one invitation e-mail (which
 * lists at most MAX_LISTED_ISSUERS by name and counts the rest): bounds the reads of one request.
 */
const MAX_PENDING_LOOKUPS = 50

/** The tables the member use cases touch. */
export type MembersTableNames = { memberships: string; audit: string; issuers: string }

/**
 * An issuer always keeps at least one owner: a change that makes an owner stop being one
 * condition-checks another owner (the witness) in its own transaction. Why that holds under any
 * concurrency: docs/decisions/owner-witness.md.
 */
export class DynamoDbMembersStore implements MembersStore {
  private readonly reader: DynamoDbMembershipReader

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: MembersTableNames,
  ) {
    this.reader = new DynamoDbMembershipReader(client, tables)
  }

  get(issuerId: string, sub: string, options: CallOptions = {}) {
    return this.reader.get(issuerId, sub, options)
  }

  async list(issuerId: string, { signal }: CallOptions = {}) {
    return queryAll<MembershipRecord>(sendWith(this.client, signal), {
      TableName: this.tables.memberships,
      KeyConditionExpression: 'issuerId = :issuer',
      ExpressionAttributeValues: { ':issuer': issuerId },
      ConsistentRead: true,
    })
  }

  async issuerName(issuerId: string, { signal }: CallOptions = {}) {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tables.issuers,
        Key: { issuerId },
        ProjectionExpression: '#name',
        ExpressionAttributeNames: { '#name': 'name' },
      }),
      { abortSignal: signal },
    )
    return Item?.name as string | undefined
  }

  async add(
    record: MembershipRecord,
    audit: AuditEntry,
    { signal }: CallOptions = {},
  ): Promise<AddOutcome> {
    const outcome = await this.transact(
      [
        {
          Put: {
            TableName: this.tables.memberships,
            Item: record,
            ConditionExpression: 'attribute_not_exists(#sub)',
            ExpressionAttributeNames: { '#sub': 'sub' },
          },
        },
        auditPut(this.tables.audit, audit),
      ],
      signal,
    )
    return outcome === 'stale' ? 'exists' : outcome === 'witness_gone' ? 'conflict' : outcome
  }

  changeRole(
    input: { current: MembershipRecord; role: Role; witness?: string | undefined },
    audit: AuditEntry,
    { signal }: CallOptions = {},
  ) {
    const { current, role, witness } = input
    return this.transact(
      [
        {
          Update: {
            TableName: this.tables.memberships,
            Key: { issuerId: current.issuerId, sub: current.sub },
            UpdateExpression: 'SET #role = :role',
            ConditionExpression: '#role = :current',
            ExpressionAttributeNames: { '#role': 'role' },
            ExpressionAttributeValues: { ':role': role, ':current': current.role },
          },
        },
        ...this.witnessCheck(current.issuerId, witness),
        auditPut(this.tables.audit, audit),
      ],
      signal,
    )
  }

  remove(
    input: { current: MembershipRecord; witness?: string | undefined },
    audit: AuditEntry,
    { signal }: CallOptions = {},
  ) {
    const { current, witness } = input
    return this.transact(
      [
        {
          Delete: {
            TableName: this.tables.memberships,
            Key: { issuerId: current.issuerId, sub: current.sub },
            ConditionExpression: '#role = :current',
            ExpressionAttributeNames: { '#role': 'role' },
            ExpressionAttributeValues: { ':current': current.role },
          },
        },
        ...this.witnessCheck(current.issuerId, witness),
        auditPut(this.tables.audit, audit),
      ],
      signal,
    )
  }

  recordResend(current: MembershipRecord, audit: AuditEntry, { signal }: CallOptions = {}) {
    return this.transact(
      [
        {
          ConditionCheck: {
            TableName: this.tables.memberships,
            Key: { issuerId: current.issuerId, sub: current.sub },
            ConditionExpression: '#status = :invited',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':invited': 'invited' },
          },
        },
        auditPut(this.tables.audit, audit),
      ],
      signal,
    )
  }

  async markActive(issuerId: string, sub: string, { signal }: CallOptions = {}) {
    // A refused condition (removed, or already active) leaves nothing to do.
    await conditional(
      this.client.send(
        new UpdateCommand({
          TableName: this.tables.memberships,
          Key: { issuerId, sub },
          UpdateExpression: 'SET #status = :active',
          ConditionExpression: '#status = :invited',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':active': 'active', ':invited': 'invited' },
        }),
        { abortSignal: signal },
      ),
    )
  }

  async pendingIssuerNames(sub: string, exceptIssuerId: string, { signal }: CallOptions = {}) {
    // The person's issuers through the bySub index (the query the management routes make), then,
    // side by side, one strongly consistent read of each membership's status (the index does not
    // carry it) and each pending one's name: a person belongs to a handful of issuers.
    const issuerIds = (await this.reader.listForPerson(sub, { signal }))
      .map((membership) => membership.issuerId)
      .filter((issuerId) => issuerId !== exceptIssuerId)
      .slice(0, MAX_PENDING_LOOKUPS)
    const names = await Promise.all(
      issuerIds.map(async (issuerId) => {
        const membership = await this.get(issuerId, sub, { signal })
        if (membership?.status !== 'invited') return undefined
        return this.issuerName(issuerId, { signal })
      }),
    )
    return names.filter((name): name is string => name !== undefined).sort()
  }

  async acceptInvitations(sub: string, issuerIds: readonly string[], options: CallOptions = {}) {
    await Promise.all(issuerIds.map((issuerId) => this.markActive(issuerId, sub, options)))
  }

  private witnessCheck(issuerId: string, witness: string | undefined): TransactItems {
    return witness === undefined
      ? []
      : [
          {
            ConditionCheck: {
              TableName: this.tables.memberships,
              Key: { issuerId, sub: witness },
              ConditionExpression: '#role = :owner',
              ExpressionAttributeNames: { '#role': 'role' },
              ExpressionAttributeValues: { ':owner': 'owner' },
            },
          },
        ]
  }

  /**
   * Sends one transaction whose first item is the member's and whose second, when it is not the
   * audit entry, is the witness's; tells which condition failed from the cancellation reasons
   * (their order is the items').
   */
  private async transact(
    items: TransactItems,
    signal: AbortSignal | undefined,
  ): Promise<WriteOutcome> {
    const hasWitness = items.length === 3
    const outcome = await transact(this.client, items, {
      signal,
      names: hasWitness ? ['member', 'witness', 'audit'] : ['member', 'audit'],
    })
    if (outcome.kind === 'done') return 'done'
    if (outcome.kind === 'unavailable') {
      return outcome.reason === 'throttled' ? 'unavailable' : 'conflict'
    }
    if (outcome.name === 'member') return 'stale'
    if (outcome.name === 'witness') return 'witness_gone'
    // The audit entry's own condition (an id clash: 32 random bits within one millisecond):
    // nothing was written; say so loudly rather than guess.
    throw outcome.cause
  }
}
