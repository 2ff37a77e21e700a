import type { Mode } from '../shared/api-key'

export type ApiKeyStatus = 'active' | 'revoked'
export type ProgramStatus = 'active' | 'paused' | 'closed'

/** Item of the API keys table. Keyed by the SHA-256 of the secret; the secret is never stored. */
export type ApiKeyRecord = {
  keyHash: string
  keyId: string
  issuerId: string
  mode: Mode
  status: ApiKeyStatus
  createdAt: string
  /** Epoch milliseconds; absent when the key does not expire. */
  expiresAt?: number
  prefix: string
  last4: string
}

/** Item of the programs table. `remaining` is maintained by every grant and means something only when `pool` is set. */
export type ProgramRecord = {
  programId: string
  issuerId: string
  mode: Mode
  name: string
  status: ProgramStatus
  pool?: number
  issued: number
  remaining?: number
  createdAt: string
}

/** Item of the grants table. The item is also the idempotency record (see ids.ts). */
export type GrantRecord = {
  grantId: string
  programId: string
  issuerId: string
  mode: Mode
  recipient: { email: string; name?: string }
  reason: string
  amount: number
  status: 'reserved'
  createdAt: string
  /** SHA-256 of the normalised request; tells a replay from a reuse of the Idempotency-Key. */
  requestHash: string
  idempotencyKey?: string
  keyId: string
}

/** What a cached, authenticated key may be trusted with: issuer and mode never change. */
export type KeyIdentity = Pick<ApiKeyRecord, 'keyHash' | 'keyId' | 'issuerId' | 'mode'>

export type CreateGrantOutcome =
  | { kind: 'created' }
  | { kind: 'key_rejected' }
  | { kind: 'grant_exists'; existing: GrantRecord }
  | { kind: 'program_rejected'; program: ProgramRecord | undefined }
  | { kind: 'conflict' }

/** `signal` aborts the call (the request's deadline): the store then throws an AbortError. */
export type CallOptions = { signal?: AbortSignal | undefined }

export interface GrantStore {
  /** Strongly consistent, so a key revoked a moment ago is seen as revoked. */
  findApiKey(keyHash: string, options?: CallOptions): Promise<ApiKeyRecord | undefined>
  /**
   * One atomic write: the key is still active, the program belongs to the key's issuer and mode,
   * is active and has room in its pool (its counters move by `amount`), and the grant is new.
   */
  createGrant(
    input: { key: KeyIdentity; grant: GrantRecord; now: number } & CallOptions,
  ): Promise<CreateGrantOutcome>
  /** The key and the grant in one round trip. */
  findGrantWithKey(
    keyHash: string,
    grantId: string,
    options?: CallOptions,
  ): Promise<{ key: ApiKeyRecord | undefined; grant: GrantRecord | undefined }>
}

export const isKeyUsable = (key: ApiKeyRecord, now: number): boolean =>
  key.status === 'active' && (key.expiresAt === undefined || key.expiresAt > now)
