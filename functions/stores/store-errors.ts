import { conflictMessage } from '../domain/admin-errors'
import { isConflict, isTransient } from './kernel/dynamodb-errors'

/**
 * Why a store could not do what it was asked. In every case nothing was written:
 * - `throttled`: DynamoDB throttled the call (a cancelled transaction, reads left unprocessed);
 * - `conflict`: transactions in flight (grants) held the item until the bounded retries ran out;
 * - `clash`: a condition that guards against the impossible failed (a new id or an audit entry's
 *   id already taken), so the write was refused rather than overwrite anything;
 * - `not_upgraded`: the stage lacks an index this release reads (deploy it first).
 */
export type StoreFailure = 'throttled' | 'conflict' | 'clash' | 'not_upgraded'

/**
 * The one error a store throws. Everything else a store has to say (not found, refused by the
 * item's state, another issuer's item) is an outcome it returns. No HTTP status and no door's
 * wording: functions/http/problem.ts answers it, cli/messages.ts words it.
 */
export class StoreUnavailable extends Error {
  /** Sends made, and the time they took, for `conflict`. */
  readonly attempts: number | undefined
  readonly elapsedMs: number | undefined

  constructor(
    readonly reason: StoreFailure,
    message: string,
    options: { cause?: unknown; attempts?: number; elapsedMs?: number } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
    this.attempts = options.attempts
    this.elapsedMs = options.elapsedMs
  }
}

export const throttled = (what: string, cause?: unknown) =>
  new StoreUnavailable(
    'throttled',
    `DynamoDB throttled the request (${what}); nothing was changed. Try again.`,
    { cause },
  )

/**
 * Transaction conflicts until the retries ran out (`attempts` sends in `elapsedMs`). `change`
 * names what was asked, when the store knows it ("Setting the slot of gr_...").
 */
export const busy = (attempts: number, elapsedMs: number, change = 'The change') =>
  new StoreUnavailable('conflict', conflictMessage(change, attempts, elapsedMs), {
    attempts,
    elapsedMs,
  })

/**
 * Whether a failure below the core is worth another try, and as what: `conflict` (another
 * transaction held an item) or `unavailable` (throttled, away, or the request's deadline aborted
 * the call). The one reading of it, for the HTTP answer (problem.ts) and the batch worker alike.
 */
export const transientKind = (error: unknown): 'conflict' | 'unavailable' | undefined => {
  if (error instanceof StoreUnavailable) {
    if (error.reason === 'conflict') return 'conflict'
    return error.reason === 'throttled' ? 'unavailable' : undefined
  }
  if (isConflict(error)) return 'conflict'
  if (error instanceof Error && error.name === 'AbortError') return 'unavailable'
  return isTransient(error) ? 'unavailable' : undefined
}
