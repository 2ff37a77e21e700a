/**
 * FROZEN COPY of the grant path's store types as released before counter shards (commit b6ccc1b),
 * for `npm run bench` only (bench/contention): "today's design" in the contention model. The
 * records are the service's own (unchanged); only the store's contract of that release is here.
 */

import type { ApiKeyRecord, KeyIdentity, Mode } from '../../../functions/domain/api-key'
import type { GrantRecord } from '../../../functions/domain/grant'
import type { AuditEntry } from '../../../functions/domain/people'
import type { ProgramRecord } from '../../../functions/domain/program'
import type { CallOptions } from '../../../functions/stores/grants.store'

export { isKeyUsable } from '../../../functions/domain/api-key'
export type { GrantSender } from '../../../functions/domain/grant'
export type { ApiKeyRecord, CallOptions, GrantRecord, KeyIdentity, ProgramRecord }

export type GrantAuthority =
  | { kind: 'key'; key: KeyIdentity }
  | { kind: 'issuer'; issuerId: string; mode: Mode }

export type CreateGrantOutcome =
  | { kind: 'created' }
  | { kind: 'key_rejected' }
  | { kind: 'grant_exists'; existing: GrantRecord }
  | { kind: 'program_rejected'; program: ProgramRecord | undefined }
  | { kind: 'conflict' }

/** `signal` aborts the call (the request's deadline): the store then throws an AbortError. */

export type CreateGrantInput = {
  grant: GrantRecord
  now: number
  /** The grant API's key (`key`, as before), or an `authority` of either kind. */
  key?: KeyIdentity
  authority?: GrantAuthority
  /** Written in the same transaction as the grant, or not at all (management sends). */
  audit?: AuditEntry
} & CallOptions

/** One page of a listing, newest first; `nextCursor` is absent on the last page. */
export interface GrantStore {
  /** Strongly consistent, so a key revoked a moment ago is seen as revoked. */
  findApiKey(keyHash: string, options?: CallOptions): Promise<ApiKeyRecord | undefined>
  /**
   * One atomic write: the key is still active, the program belongs to the key's issuer and mode,
   * is active and has room in its pool (its counters move by `amount`), and the grant is new.
   */
  createGrant(input: CreateGrantInput): Promise<CreateGrantOutcome>
  /** Strongly consistent. */
  findProgram(programId: string, options?: CallOptions): Promise<ProgramRecord | undefined>
}

/** Reads for integrators and the management API (grants.reads.dynamodb.ts). */
