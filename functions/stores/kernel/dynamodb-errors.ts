import type { CancellationReason } from '@aws-sdk/client-dynamodb'

/**
 * The one reading of DynamoDB's refusals (and the AWS SDK's around them): throttles, transaction
 * conflicts, transient (busy, away, network) errors and failed conditions. Every store, the
 * transaction runner (transact.ts) and store-errors.ts's transientKind read errors through it.
 */

/**
 * "Too much, try later", as an error's name or as a cancelled transaction's reason code. One set
 * for both: the union of the lists the stores kept (ThrottlingException came from admin-writes)
 * and the throttle names runtime/aws-errors.ts kept.
 */
const THROTTLES = new Set([
  'ThrottlingError',
  'ThrottlingException',
  'ProvisionedThroughputExceeded',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
])

/** AWS SDK error names that mean "the database is busy or away", never "your request is wrong". */
const TRANSIENT = new Set([
  ...THROTTLES,
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'LimitExceededException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
])

/** Another transaction held the item; the same request can succeed a moment later. */
const CONFLICTS = new Set(['TransactionConflictException', 'TransactionInProgressException'])

const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
])

export type { CancellationReason }

const nameOf = (error: unknown) => (error instanceof Error ? error.name : undefined)

/** True for a throttle: an error's name, or a cancelled transaction's reason code. */
export const isThrottle = (nameOrCode: string | undefined) =>
  nameOrCode !== undefined && THROTTLES.has(nameOrCode)

/** A plain write (or read) refused because its condition failed. */
export const isConditionFailed = (error: unknown) =>
  nameOf(error) === 'ConditionalCheckFailedException'

/** True when another transaction held the item: nothing was written, a retry may succeed. */
export const isConflict = (error: unknown) => CONFLICTS.has(nameOf(error) ?? '')

/** True when an error from the AWS SDK (or the socket under it) is worth retrying later. */
export const isTransient = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false
  const e = error as Error & {
    code?: string
    $retryable?: unknown
    $metadata?: { httpStatusCode?: number }
  }
  if (TRANSIENT.has(e.name)) return true
  if (e.code !== undefined && TRANSIENT_NETWORK_CODES.has(e.code)) return true
  if (e.$retryable !== undefined) return true
  const status = e.$metadata?.httpStatusCode
  return status !== undefined && status >= 500
}

/** The per-item reasons of a cancelled transaction (TransactionCanceledException), else undefined. */
export const cancellationReasons = (error: unknown): CancellationReason[] | undefined =>
  nameOf(error) === 'TransactionCanceledException'
    ? ((error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [])
    : undefined

/**
 * Why a transaction was refused, most decisive first: a condition failed (`failed`: the items'
 * indexes, in order; retrying cannot help), a throttle, another transaction holding an item (as a
 * reason, or as a TransactionConflictException of its own). Undefined for anything else (a
 * validation error, an audit id clash is a condition): the caller's to throw.
 */
export type Refusal =
  | { kind: 'condition'; failed: number[]; reasons: CancellationReason[] }
  | { kind: 'throttled' }
  | { kind: 'conflict' }

export const refusalOf = (error: unknown): Refusal | undefined => {
  const reasons = cancellationReasons(error)
  if (reasons === undefined) return isConflict(error) ? { kind: 'conflict' } : undefined
  const failed: number[] = []
  reasons.forEach((reason, i) => {
    if (reason.Code === 'ConditionalCheckFailed') failed.push(i)
  })
  if (failed.length > 0) return { kind: 'condition', failed, reasons }
  if (reasons.some((reason) => isThrottle(reason.Code))) return { kind: 'throttled' }
  if (reasons.some((reason) => reason.Code === 'TransactionConflict')) return { kind: 'conflict' }
  return undefined
}
