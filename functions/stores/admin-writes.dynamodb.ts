import type { CancellationReason } from '@aws-sdk/client-dynamodb'
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { unmarshall } from '@aws-sdk/util-dynamodb'
import { type Backoff, type RetryDeps, retrying } from '../runtime/retry'
import * as RETRY from '../runtime/retry-policies'
import type { GrantListIndex } from '../table-schema'
import { auditPut } from './audit'
import type { AdminTableNames, ChangeOptions } from './changes.store'
import { refusalOf } from './kernel/dynamodb-errors'
import { type TransactItem, transact } from './kernel/transact'
import type { Send } from './paging'
import { busy, StoreUnavailable, throttled } from './store-errors'

/**
 * What the admin stores (issuers, programs, API keys, audit reads, the grant listing, the
 * migration) share: the client and tables, the request's signal, and the way a change is
 * written (its items and its audit entry in one TransactWriteItems, transaction conflicts retried
 * a bounded number of times).
 */

type TransactItems = TransactItem[]

/**
 * A write refused because a transaction in flight holds the item: a plain write answered
 * TransactionConflictException (which the SDK does not retry), or a transaction cancelled for a
 * conflict and nothing else. Either way nothing was written, so the write may be sent again.
 */
export const isTransactionConflict = (error: unknown) => refusalOf(error)?.kind === 'conflict'

/** A conflict retry (always with equal jitter: concurrent writers spread out, each waits a while). */
export type ConflictRetry = Omit<Backoff, 'jitter'>

/**
 * Grants hold the program item (and condition-check the key item) in their transactions, so an
 * operator's write on a busy program or key meets conflicts (RETRY.adminWrite).
 */
export const DEFAULT_CONFLICT_RETRY: ConflictRetry = RETRY.adminWrite

/**
 * A management request has a deadline (7.5 s of a 10 s function): RETRY.requestConflict, then the
 * route answers `409 request_conflict` with Retry-After and the person tries again.
 */
export const REQUEST_CONFLICT_RETRY: ConflictRetry = RETRY.requestConflict

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
      ...this.pacing(),
      backoff: { ...this.retry, jitter: 'equal' },
      again: isTransactionConflict,
      exhausted: (_, attempts, elapsedMs) => {
        throw busy(attempts, elapsedMs, change)
      },
    })
  }

  /** The request's signal, and the waits tests inject. */
  protected pacing() {
    return {
      signal: this.signal,
      ...(this.options.sleep === undefined ? {} : { sleep: this.options.sleep }),
      ...(this.options.random === undefined ? {} : { random: this.options.random }),
    }
  }

  /**
   * Sends the change's items and its audit entry as one transaction (conflicts retried). Returns
   * undefined when it was written, or the per-item reasons when a condition refused it (nothing
   * written then).
   */
  protected async transact(
    items: TransactItems,
    options: ChangeOptions | undefined,
  ): Promise<CancellationReason[] | undefined> {
    const all: TransactItems = [
      ...items,
      ...(options?.audit ? [auditPut(this.tables.audit, options.audit)] : []),
    ]
    const outcome = await transact(this.client, all, {
      ...this.pacing(),
      policy: { ...this.retry, jitter: 'equal' },
      retryOn: ['conflict'],
    })
    if (outcome.kind === 'done') return undefined
    if (outcome.kind === 'unavailable') {
      if (outcome.reason === 'throttled') throw throttled('a cancelled transaction', outcome.cause)
      throw busy(outcome.attempts, outcome.elapsedMs)
    }
    // The audit entry's own condition (a unique id) never fails in practice; if it did, the
    // change was not made either, and saying so beats a wrong outcome.
    if (options?.audit && outcome.failed.includes(all.length - 1)) {
      throw new StoreUnavailable(
        'clash',
        'The audit entry could not be written; nothing was changed.',
      )
    }
    return outcome.reasons
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
