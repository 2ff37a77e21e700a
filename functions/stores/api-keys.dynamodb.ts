import { GetCommand } from '@aws-sdk/lib-dynamodb'
import type { ApiKeyRecord } from '../domain/api-key'
import { INDEX, KEY_ID_POINTER } from '../table-schema'
import { DynamoDbAdminBase, itemOf } from './admin-writes.dynamodb'
import type {
  AdminKeyRecord,
  ApiKeyStore,
  KeyLimitChange,
  KeyLimitSet,
  KeyRevocation,
  KeyRoll,
} from './api-keys.store'
import type { ChangeOptions, IssuerModeFilter } from './changes.store'
import { issuerItems, issuerUpdate } from './issuer-items.dynamodb'
import { queryAll, scanAll } from './paging'
import { RATE_ITEM_PREFIX } from './rate-leases.dynamodb'

/** A key that can be rolled: active, and not past its expiry (`:now`). */
const ROLLABLE = '#status = :active AND (attribute_not_exists(#expires) OR #expires > :now)'

/** The key of the pointer item that finds a key by its id (see KEY_ID_POINTER). */
export const keyIdPointer = (keyId: string) => `${KEY_ID_POINTER.prefix}${keyId}`

/** The API keys table: keys by hash, and a pointer item per key that finds it by id. */
export class DynamoDbApiKeyStore extends DynamoDbAdminBase implements ApiKeyStore {
  /** The pointer that finds a key by id (see KEY_ID_POINTER), put in the key's transaction. */
  private pointerPut(key: ApiKeyRecord) {
    return {
      table: this.tables.apiKeys,
      item: { keyHash: keyIdPointer(key.keyId), [KEY_ID_POINTER.target]: key.keyHash },
      key: 'keyHash',
    }
  }

  createApiKey(key: AdminKeyRecord, options?: ChangeOptions) {
    return this.putForIssuer(
      key.issuerId,
      [{ table: this.tables.apiKeys, item: key, key: 'keyHash' }, this.pointerPut(key)],
      options,
    )
  }

  /**
   * The pointer, then the key, both strongly consistent: found even a moment after it was
   * created or rolled, which the `byKeyId` index (eventually consistent) does not promise.
   */
  async findApiKeyById(keyId: string): Promise<AdminKeyRecord | undefined> {
    const { Item: pointer } = await this.send<{ Item?: Record<string, unknown> }>(
      new GetCommand({
        TableName: this.tables.apiKeys,
        Key: { keyHash: keyIdPointer(keyId) },
        ConsistentRead: true,
      }),
    )
    let keyHash = pointer?.[KEY_ID_POINTER.target] as string | undefined
    if (keyHash === undefined) {
      // Keys created before pointers existed have none: the index finds them. They were written
      // long before this version ran, so the index has them; the read below is consistent.
      const [indexed] = await queryAll<ApiKeyRecord>(this.send, {
        TableName: this.tables.apiKeys,
        IndexName: INDEX.keysById,
        KeyConditionExpression: 'keyId = :id',
        ExpressionAttributeValues: { ':id': keyId },
      })
      keyHash = indexed?.keyHash
    }
    if (keyHash === undefined) return undefined
    const { Item } = await this.send<{ Item?: AdminKeyRecord }>(
      new GetCommand({ TableName: this.tables.apiKeys, Key: { keyHash }, ConsistentRead: true }),
    )
    return Item
  }

  /**
   * By issuer: the `byIssuer` index finds the keys (a key created a moment ago may show a little
   * late), and one consistent BatchGetItem per 100 reads them, so a key revoked or rolled a moment
   * ago shows as it is now.
   */
  async listApiKeys(filter: IssuerModeFilter): Promise<AdminKeyRecord[]> {
    const keys =
      filter.issuerId === undefined
        ? await scanAll<AdminKeyRecord>(this.send, {
            TableName: this.tables.apiKeys,
            ConsistentRead: true,
            // Pointer items and rate buckets are not keys. (They are in neither index: they have
            // no keyId, issuerId or createdAt.)
            FilterExpression:
              'NOT begins_with(keyHash, :pointer) AND NOT begins_with(keyHash, :rate)',
            ExpressionAttributeValues: {
              ':pointer': KEY_ID_POINTER.prefix,
              ':rate': RATE_ITEM_PREFIX,
            },
          })
        : await issuerItems<AdminKeyRecord>(this.client, this.send, this.pacing(), {
            table: this.tables.apiKeys,
            index: INDEX.keysByIssuer,
            key: 'keyHash',
            issuerId: filter.issuerId,
            query: { ProjectionExpression: 'keyHash' },
          })
    return keys
      .filter((k) => filter.mode === undefined || k.mode === filter.mode)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
  }

  async revokeApiKey(keyHash: string, options?: ChangeOptions): Promise<KeyRevocation> {
    const issuer = options?.issuerId
    const refused = await this.transact(
      [
        issuerUpdate(issuer, {
          TableName: this.tables.apiKeys,
          Key: { keyHash },
          UpdateExpression: 'SET #status = :revoked',
          // keyId: a key, not a pointer item. Already revoked: nothing to write, nor to audit.
          ConditionExpression: 'attribute_exists(keyId) AND #status <> :revoked',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':revoked': 'revoked' },
        }),
      ],
      options,
    )
    if (!refused) return { kind: 'revoked' }
    const current = itemOf<AdminKeyRecord>(refused[0])
    if (!current?.keyId || (issuer !== undefined && current.issuerId !== issuer)) {
      return { kind: 'not_found' }
    }
    return { kind: 'already_revoked' }
  }

  /** The condition is domain/api-key.ts's keyState "active", in DynamoDB's terms. */
  async rollApiKey(
    {
      old,
      next,
      oldExpiresAt,
      now,
    }: { old: ApiKeyRecord; next: AdminKeyRecord; oldExpiresAt: number; now: number },
    options?: ChangeOptions,
  ): Promise<KeyRoll> {
    const issuer = options?.issuerId
    const pointer = this.pointerPut(next)
    const refused = await this.transact(
      [
        issuerUpdate(issuer, {
          TableName: this.tables.apiKeys,
          Key: { keyHash: old.keyHash },
          UpdateExpression: 'SET #expires = :expires, rolledTo = :next',
          ConditionExpression: ROLLABLE,
          ExpressionAttributeNames: { '#status': 'status', '#expires': 'expiresAt' },
          ExpressionAttributeValues: {
            ':expires': oldExpiresAt,
            ':next': next.keyId,
            ':active': 'active',
            ':now': now,
          },
        }),
        {
          Put: {
            TableName: this.tables.apiKeys,
            Item: next,
            ConditionExpression: 'attribute_not_exists(keyHash)',
          },
        },
        {
          Put: {
            TableName: pointer.table,
            Item: pointer.item,
            ConditionExpression: 'attribute_not_exists(keyHash)',
          },
        },
      ],
      options,
    )
    return refused
      ? { kind: 'refused', current: itemOf<AdminKeyRecord>(refused[0]) }
      : { kind: 'rolled' }
  }

  /** On the roll's condition (the key still usable) and on the limit being as it was read. */
  async setApiKeyRateLimit(
    { keyHash, from, to, now }: KeyLimitChange,
    options?: ChangeOptions,
  ): Promise<KeyLimitSet> {
    const refused = await this.transact(
      [
        issuerUpdate(options?.issuerId, {
          TableName: this.tables.apiKeys,
          Key: { keyHash },
          UpdateExpression: to === undefined ? 'REMOVE #limit' : 'SET #limit = :to',
          ConditionExpression: `${ROLLABLE} AND ${from === undefined ? 'attribute_not_exists(#limit)' : '#limit = :from'}`,
          ExpressionAttributeNames: {
            '#status': 'status',
            '#expires': 'expiresAt',
            '#limit': 'rateLimit',
          },
          ExpressionAttributeValues: {
            ':active': 'active',
            ':now': now,
            ...(to === undefined ? {} : { ':to': to }),
            ...(from === undefined ? {} : { ':from': from }),
          },
        }),
      ],
      options,
    )
    return refused
      ? { kind: 'refused', current: itemOf<AdminKeyRecord>(refused[0]) }
      : { kind: 'set' }
  }
}
