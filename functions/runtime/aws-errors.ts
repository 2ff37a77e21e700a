/**
 * How the AWS SDK says "busy, away or in conflict": the errors worth trying again. Read through
 * transientKind (stores/store-errors.ts), with the stores' own StoreUnavailable.
 */

/** AWS SDK error names that mean "the database is busy or away", never "your request is wrong". */
const TRANSIENT_AWS_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
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
const CONFLICT_AWS_ERRORS = new Set([
  'TransactionConflictException',
  'TransactionInProgressException',
])
const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
])

/** True when an error from the AWS SDK (or the socket under it) is worth retrying later. */
export const isTransientAwsError = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false
  const e = error as Error & {
    code?: string
    $retryable?: unknown
    $metadata?: { httpStatusCode?: number }
  }
  if (TRANSIENT_AWS_ERRORS.has(e.name)) return true
  if (e.code !== undefined && TRANSIENT_NETWORK_CODES.has(e.code)) return true
  if (e.$retryable !== undefined) return true
  const status = e.$metadata?.httpStatusCode
  return status !== undefined && status >= 500
}

/** True when another transaction held the item: nothing was written, a retry may succeed. */
export const isAwsConflict = (error: unknown): boolean =>
  error instanceof Error && CONFLICT_AWS_ERRORS.has(error.name)
