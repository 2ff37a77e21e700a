import type { Mode } from '../shared/api-key'
import type { TableKey } from '../shared/table-schema'
import type {
  ApiKeyRecord,
  GrantRecord,
  ProgramRecord,
  ProgramStatus,
} from '../stores/grants.store'

/** Every table's physical name: the admin side (CLI, management API) may touch any of them. */
export type AdminTableNames = Record<TableKey, string>

export type IssuerRecord = { issuerId: string; name: string; createdAt: string }

/** Raised for anything an operator asked for that cannot be done; the CLI prints the message. */
export class AdminError extends Error {}

/**
 * A write DynamoDB kept refusing with a transaction conflict (a grant in flight held the same
 * item) until the store's retries ran out. Nothing was written.
 */
export class WriteConflictError extends AdminError {
  constructor(
    readonly attempts: number,
    readonly elapsedMs: number,
  ) {
    super(
      `The change did NOT take effect: grants in flight kept the item busy (DynamoDB transaction conflict, ${attempts} attempts in ${(elapsedMs / 1000).toFixed(1)} s). Run the command again.`,
    )
  }
}

export type Page<T> = { items: T[]; nextCursor?: string }

/**
 * What issuers do outside the grant API: issuers, programs, keys, and reading grants.
 * Every write retries transaction conflicts with jittered backoff, a bounded number of times, then
 * fails with WriteConflictError (and has written nothing).
 */
export interface AdminStore {
  createIssuer(issuer: IssuerRecord): Promise<void>
  listIssuers(): Promise<IssuerRecord[]>
  /** Fails with AdminError when the issuer does not exist. */
  createProgram(program: ProgramRecord): Promise<void>
  getProgram(programId: string): Promise<ProgramRecord | undefined>
  /** Counters and status as the base table holds them now (strongly consistent). */
  listPrograms(filter: { issuerId?: string; mode?: Mode }): Promise<ProgramRecord[]>
  /** Moves the status only from one of `from`; false when the program was in another status. */
  setProgramStatus(programId: string, to: ProgramStatus, from: ProgramStatus[]): Promise<boolean>
  /** Fails with AdminError when the issuer does not exist. */
  createApiKey(key: ApiKeyRecord): Promise<void>
  /** Strongly consistent: a key created or rolled a moment ago is found. */
  findApiKeyById(keyId: string): Promise<ApiKeyRecord | undefined>
  listApiKeys(filter: { issuerId?: string }): Promise<ApiKeyRecord[]>
  revokeApiKey(keyHash: string): Promise<void>
  /** Atomically: the new key exists, and the old one (still usable at `now`) expires at `oldExpiresAt`. */
  rollApiKey(input: {
    old: ApiKeyRecord
    next: ApiKeyRecord
    oldExpiresAt: number
    now: number
  }): Promise<boolean>
  /** Newest first. */
  listGrants(input: {
    programId: string
    recipientEmail?: string
    limit: number
    cursor?: string
  }): Promise<Page<GrantRecord>>
}
