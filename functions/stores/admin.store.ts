import type { ApiKeyStore } from './api-keys.store'
import type { AuditLog } from './audit.store'
import type { IssuerStore } from './issuers.store'
import type { GrantSlotBackfill } from './migrations/grant-slots.store'
import type { ProgramGrantPages, ProgramStore } from './programs.store'

export type { AdminTableNames, ChangeOptions, Page } from './changes.store'

/**
 * What issuers do outside the grant API, as the admin use cases (functions/core/admin.ts) see it:
 * issuers, programs, keys, a program's grants, the audit log, and the one-off upgrade step, each
 * its own store (issuers.store.ts, programs.store.ts, api-keys.store.ts, audit.store.ts,
 * migrations/). Outcomes (not found, refused by the item's state) are returned; the one thing
 * thrown is StoreUnavailable (store-errors.ts), after which nothing was written. Every write
 * retries transaction conflicts with jittered backoff a bounded number of times first.
 */
export interface AdminStore
  extends IssuerStore,
    ProgramStore,
    ProgramGrantPages,
    ApiKeyStore,
    AuditLog,
    GrantSlotBackfill {
  /** The same store, every call of which is abandoned when `signal` aborts (a request's deadline). */
  withSignal(signal: AbortSignal | undefined): AdminStore
}
