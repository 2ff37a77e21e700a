import type { Mode } from '../domain/api-key'
import type { AuditEntry } from '../domain/people'
import type { TableKey } from '../table-schema'

/** Every table's physical name: the admin side (CLI, management API) may touch any of them. */
export type AdminTableNames = Record<TableKey, string>

/**
 * What every change may carry besides its own items, in its own TransactWriteItems:
 * - `audit`: the audit entry, written with the change or not at all (every use case passes one;
 *   only tests write without);
 * - `issuerId`: the caller's issuer (a management route's); the write's condition requires the
 *   item to belong to it, so another issuer's item is never changed, even by a race.
 */
export type ChangeOptions = { audit?: AuditEntry; issuerId?: string }

/** How a creation under an issuer ended: the issuer's existence is checked in the same write. */
export type Creation = 'created' | 'issuer_not_found'

/** An admin listing's filter: one issuer's, one mode's, or every item. */
export type IssuerModeFilter = { issuerId?: string; mode?: Mode }

export type Page<T> = { items: T[]; nextCursor?: string }
