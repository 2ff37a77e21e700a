import type { Mode } from '../domain/api-key'
import type { AuditEntry } from '../domain/people'
import type { ApiKeyRecord, GrantRecord, ProgramRecord, ProgramStatus } from './grants.store'
import type { TableKey } from './table-schema'

/** Every table's physical name: the admin side (CLI, management API) may touch any of them. */
export type AdminTableNames = Record<TableKey, string>

export type IssuerRecord = { issuerId: string; name: string; createdAt: string }

/**
 * An API key as the admin side writes it: the grant path's record, plus who created it (a
 * person's e-mail, or "operator CLI"; absent on keys made before it was recorded) and, once it
 * was rolled, the key that replaced it.
 */
export type AdminKeyRecord = ApiKeyRecord & { createdBy?: string; rolledTo?: string }

/**
 * Anything an operator or a member asked for that cannot be done. The message is plain and
 * front-end neutral ("No program prg_...."); each door (CLI, management routes) says it its way.
 */
export class AdminError extends Error {
  constructor(message: string) {
    super(message)
    this.name = new.target.name
  }
}

/** One input that breaks a rule: the field (`pool`, `expiresIn`) and the rule it breaks. */
export type FieldProblem = { field: string; rule: string }

/**
 * Input that breaks the use cases' rules, every field at once. The CLI names each field as its
 * flag (`--pool must be ...`), the management routes answer `400 validation_failed` with
 * `errors: [{ field, message }]`.
 */
export class InvalidInput extends AdminError {
  constructor(readonly problems: FieldProblem[]) {
    super(problems.map((p) => `${p.field} ${p.rule}`).join('; '))
  }
}

/** A malformed id given to the CLI (the routes check ids first and answer 404). */
export class InvalidId extends AdminError {
  constructor(
    readonly label: string,
    readonly id: string,
  ) {
    super(`${label} ${JSON.stringify(id)} is not a valid id.`)
  }
}

/** No such issuer, program or key, or one of another issuer than the caller's: the same answer. */
export class NotFound extends AdminError {
  constructor(
    readonly kind: 'issuer' | 'program' | 'key',
    readonly id: string,
  ) {
    super(`No ${kind} ${id}.`)
  }
}

/** The program or key is in a state that does not allow the change (closing is final, ...). */
export class StateConflict extends AdminError {
  constructor(
    readonly kind: 'program' | 'key',
    readonly id: string,
    readonly current: string,
    message: string,
  ) {
    super(message)
  }
}

/**
 * A write DynamoDB kept refusing with a transaction conflict (a grant in flight held the same
 * item) until the store's retries ran out. Nothing was written. `change` names what was asked
 * ("Revoking key key_..."), once the use case knows it.
 */
export class WriteConflictError extends AdminError {
  constructor(
    readonly attempts: number,
    readonly elapsedMs: number,
    readonly change = 'The change',
  ) {
    super(
      `${change} did NOT take effect: grants in flight kept it busy (DynamoDB transaction conflict, ${attempts} attempts in ${(elapsedMs / 1000).toFixed(1)} s).`,
    )
  }
}

/** DynamoDB throttled the call (a cancelled transaction, unprocessed batch keys): nothing changed. */
export class StoreUnavailable extends AdminError {
  constructor(what: string) {
    super(`DynamoDB throttled the request (${what}); nothing was changed. Try again.`)
  }
}

export type Page<T> = { items: T[]; nextCursor?: string }

/**
 * What `grant backfill-slots` did: items the scan read, grants given their `programSlot`, and
 * grants found without one that had one (or were gone) by the time of the write.
 */
export type SlotBackfill = { scanned: number; updated: number; alreadySet: number }

/** How a conditional change of a program ended. `current` is the program as the write found it. */
export type ProgramChange =
  | { kind: 'changed' }
  | { kind: 'not_found' }
  | { kind: 'refused'; current: ProgramRecord }

export type KeyRevocation =
  | { kind: 'revoked' }
  | { kind: 'already_revoked' }
  | { kind: 'not_found' }

export type KeyRoll = { kind: 'rolled' } | { kind: 'refused'; current: AdminKeyRecord | undefined }

/**
 * What every change may carry besides its own items, in its own TransactWriteItems:
 * - `audit`: the audit entry, written with the change or not at all (every use case passes one;
 *   only tests write without);
 * - `issuerId`: the caller's issuer (a management route's); the write's condition requires the
 *   item to belong to it, so another issuer's item is never changed, even by a race.
 */
export type ChangeOptions = { audit?: AuditEntry; issuerId?: string }

/**
 * What issuers do outside the grant API: issuers, programs, keys, the audit log, and reading
 * grants. Outcomes (not found, refused by the item's state) are returned, not thrown; every write
 * retries transaction conflicts with jittered backoff a bounded number of times, then fails with
 * WriteConflictError (and has written nothing).
 */
export interface AdminStore {
  /** The same store, every call of which is abandoned when `signal` aborts (a request's deadline). */
  withSignal(signal: AbortSignal | undefined): AdminStore
  createIssuer(issuer: IssuerRecord, options?: ChangeOptions): Promise<void>
  listIssuers(): Promise<IssuerRecord[]>
  /** Strongly consistent names of these issuers (absent ones are left out). */
  issuerNames(issuerIds: string[]): Promise<Map<string, string>>
  createProgram(
    program: ProgramRecord,
    options?: ChangeOptions,
  ): Promise<'created' | 'issuer_not_found'>
  getProgram(programId: string): Promise<ProgramRecord | undefined>
  /** Counters and status as the base table holds them now (strongly consistent). */
  listPrograms(filter: { issuerId?: string; mode?: Mode }): Promise<ProgramRecord[]>
  /** Moves the status only from one of `from` (and only within `options.issuerId`). */
  setProgramStatus(
    programId: string,
    to: ProgramStatus,
    from: ProgramStatus[],
    options?: ChangeOptions,
  ): Promise<ProgramChange>
  createApiKey(
    key: AdminKeyRecord,
    options?: ChangeOptions,
  ): Promise<'created' | 'issuer_not_found'>
  /** Strongly consistent: a key created or rolled a moment ago is found. */
  findApiKeyById(keyId: string): Promise<AdminKeyRecord | undefined>
  /** By issuer: found through an index (a key made a moment ago may show late), read consistently. */
  listApiKeys(filter: { issuerId?: string; mode?: Mode }): Promise<AdminKeyRecord[]>
  revokeApiKey(keyHash: string, options?: ChangeOptions): Promise<KeyRevocation>
  /** Atomically: the new key exists, and the old one (still usable at `now`) expires at `oldExpiresAt`. */
  rollApiKey(
    input: { old: ApiKeyRecord; next: AdminKeyRecord; oldExpiresAt: number; now: number },
    options?: ChangeOptions,
  ): Promise<KeyRoll>
  /** Newest first. */
  listGrants(input: {
    programId: string
    recipientEmail?: string
    limit: number
    cursor?: string
  }): Promise<Page<GrantRecord>>
  /**
   * Gives every grant without `programSlot` (written before `byProgramSlot` existed) its slot.
   * Idempotent.
   */
  backfillGrantSlots(): Promise<SlotBackfill>
  /** The issuer's audit log, newest first, from after the entry `after` (exclusive). */
  listAudit(input: {
    issuerId: string
    limit: number
    after?: string
  }): Promise<{ items: AuditEntry[]; last?: string }>
}
