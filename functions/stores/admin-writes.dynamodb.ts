import type { CancellationReason } from '@aws-sdk/client-dynamodb'
import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb'
import { unmarshall } from '@aws-sdk/util-dynamodb'
import { type RetryDeps, retrying } from '../runtime/retry'
import { auditPut } from './audit'
import type { AdminTableNames, ChangeOptions } from './changes.store'
import { cancellationReasons, isConflict, isThrottle } from './kernel/dynamodb-errors'
import type { Send } from './paging'
import { busy, StoreUnavailable, throttled } from './store-errors'
import type { GrantListIndex } from './table-schema'

/**
 * What the admin stores (issuers, programs, API keys, audit reads, the grant listing, the
 * migration) share: the client and tables, the request's signal, and the way a change is
 * written (its items and its audit entry in one TransactWriteItems, transaction conflicts retried
 * a bounded number of times).
 */

type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>

/**
 * A write refused because a transaction in flight holds the item: a plain write answered
 * TransactionConflictException (which the SDK does not retry), or a transaction cancelled for a
 * conflict and nothing else. Either way nothing was written, so the write may be sent again.
 */
export const isTransactionConflict = (error: unknown) => {
  if (isConflict(error)) return true
  const reasons = cancellationReasons(error) ?? []
  return (
    reasons.some((r) => r.Code === 'TransactionConflict') &&
    !reasons.some((r) => r.Code === 'ConditionalCheckFailed')
  )
}

export type ConflictRetry = {
  /** Sends in all, the first included. */
  attempts: number
  /** Delay before the first retry; it doubles each time up to maxDelayMs. */
  baseDelayMs: number
  maxDelayMs: number
}

/**
 * Grants hold the program item (and condition-check the key item) in their transactions, so an
 * operator's write on a busy program or key meets conflicts. 8 attempts wait 1.8 to 3.6 s in all
 * (equal jitter: half of each delay fixed, half random, so concurrent writers spread out).
 */
export const DEFAULT_CONFLICT_RETRY: ConflictRetry = {
  attempts: 8,
  baseDelayMs: 50,
  maxDelayMs: 1_000,
}

/**
 * A management request has a deadline (7.5 s of a 10 s function): 4 attempts wait at most 350 ms,
 * then the route answers `409 request_conflict` with Retry-After and the person tries again.
 */
export const REQUEST_CONFLICT_RETRY: ConflictRetry = {
  attempts: 4,
  baseDelayMs: 50,
  maxDelayMs: 400,
}

export type AdminStoreOptions = Pick<RetryDeps, 'sleep' | 'random'> & {
  conflictRetry?: ConflictRetry
  signal?: AbortSignal | undefined
  /**
   * The index `listGrants` reads: the stack's GRANT_LIST_INDEX_OUTPUT for `--stack` (`byProgram`
   * while the stage still has it), else `byProgramSlot`.
   */
  grantListIndex?: GrantListIndex
}

/** The item a refused condition returned (ReturnValuesOnConditionCheckFailure: ALL_OLD). */
export const itemOf = <T>(reason: CancellationReason | undefined): T | undefined =>
  reason?.Item ? (unmarshall(reason.Item) as T) : undefined

/** A stage deployed from an earlier release lacks the index: say what to do. */
export const missingIndex = (table: string, index: string) => (error: unknown) => {
  const e = error as Error
  if (e.name === 'ValidationException' && /specified index|backfilling/i.test(e.message)) {
    throw new StoreUnavailable(
      'not_upgraded',
      `Table ${table} has no usable index ${index} (${e.message}): deploy this release to the stage first (npx cdk deploy), or wait until the index has been built.`,
      { cause: error },
    )
  }
  throw error
}

export abstract class DynamoDbAdminBase {
  protected readonly retry: ConflictRetry
  protected readonly signal: AbortSignal | undefined

  constructor(
    protected readonly client: DynamoDBDocumentClient,
    protected readonly tables: AdminTableNames,
    protected readonly options: AdminStoreOptions = {},
  ) {
    this.retry = options.conflictRetry ?? DEFAULT_CONFLICT_RETRY
    this.signal = options.signal
  }

  /** Every call of this store: abandoned when its signal aborts (a request's deadline). */
  protected readonly send: Send = <T>(command: { readonly input: object }) =>
    this.client.send(command as never, { abortSignal: this.signal }) as Promise<T>

  /** Sends `write` again while DynamoDB refuses it for a transaction conflict, up to the bound. */
  protected retryConflicts<T>(write: () => Promise<T>, change?: string): Promise<T> {
    return retrying(write, {
      backoff: { ...this.retry, jitter: 'equal' },
      again: isTransactionConflict,
      exhausted: (_, attempts, elapsedMs) => {
        throw busy(attempts, elapsedMs, change)
      },
      signal: this.signal,
      ...(this.options.sleep === undefined ? {} : { sleep: this.options.sleep }),
      ...(this.options.random === undefined ? {} : { random: this.options.random }),
    })
  }

  /**
   * Sends the change's items and its audit entry as one transaction (conflicts retried). Returns
   * undefined when it was written, or the per-item reasons when a condition refused it (nothing
   * written then).
   */
  protected transact(
    items: TransactItems,
    options: ChangeOptions | undefined,
  ): Promise<CancellationReason[] | undefined> {
    const all: TransactItems = [
      ...items,
      ...(options?.audit ? [auditPut(this.tables.audit, options.audit)] : []),
    ]
    return this.retryConflicts(async () => {
      try {
        await this.send(new TransactWriteCommand({ TransactItems: all }))
        return undefined
      } catch (error) {
        const reasons = cancellationReasons(error) ?? []
        if (reasons.some((r) => isThrottle(r.Code))) {
          throw throttled('a cancelled transaction', error)
        }
        if (isTransactionConflict(error)) throw error
        if (!reasons.some((r) => r.Code === 'ConditionalCheckFailed')) throw error
        // The audit entry's own condition (a unique id) never fails in practice; if it did,
        // the change was not made either, and saying so beats a wrong outcome.
        if (options?.audit && reasons[all.length - 1]?.Code === 'ConditionalCheckFailed') {
          throw new StoreUnavailable(
            'clash',
            'The audit entry could not be written; nothing was changed.',
          )
        }
        return reasons
      }
    })
  }

  /**
   * The issuer check and the writes in one transaction, so no program or key is ever orphaned.
   * `items` are put on condition that they do not exist yet.
   */
  protected async putForIssuer(
    issuerId: string,
    items: { table: string; item: object; key: string }[],
    options: ChangeOptions | undefined,
  ): Promise<'created' | 'issuer_not_found'> {
    const refused = await this.transact(
      [
        {
          ConditionCheck: {
            TableName: this.tables.issuers,
            Key: { issuerId },
            ConditionExpression: 'attribute_exists(issuerId)',
          },
        },
        ...items.map(({ table, item, key }) => ({
          Put: {
            TableName: table,
            Item: item,
            ConditionExpression: 'attribute_not_exists(#key)',
            ExpressionAttributeNames: { '#key': key },
          },
        })),
      ],
      options,
    )
    if (!refused) return 'created'
    if (refused[0]?.Code === 'ConditionalCheckFailed') return 'issuer_not_found'
    throw new StoreUnavailable(
      'clash',
      'A new id clashed with an existing item; nothing was written. Try again.',
    )
  }
}
