import type { ApiKeyRecord } from '../domain/api-key'
import type { ChangeOptions, Creation, IssuerModeFilter } from './changes.store'

/**
 * An API key as the admin side writes it: the grant path's record, plus who created it (a
 * person's e-mail, or "operator CLI"; absent on keys made before it was recorded) and, once it
 * was rolled, the key that replaced it.
 */
export type AdminKeyRecord = ApiKeyRecord & { createdBy?: string; rolledTo?: string }

export type KeyRevocation =
  | { kind: 'revoked' }
  | { kind: 'already_revoked' }
  | { kind: 'not_found' }

export type KeyRoll = { kind: 'rolled' } | { kind: 'refused'; current: AdminKeyRecord | undefined }

/** A key's own rate limit, as it was read (`from`) and as it is to be (`to`); absent: none. */
export type KeyLimitChange = { keyHash: string; from?: number; to?: number; now: number }

export type KeyLimitSet = { kind: 'set' } | { kind: 'refused'; current: AdminKeyRecord | undefined }

/** API keys as the admin side makes, finds, revokes, rolls and limits them. */
export interface ApiKeyStore {
  /** The key and its id pointer, with the issuer's existence checked in the same write. */
  createApiKey(key: AdminKeyRecord, options?: ChangeOptions): Promise<Creation>
  /** Strongly consistent: a key created or rolled a moment ago is found. */
  findApiKeyById(keyId: string): Promise<AdminKeyRecord | undefined>
  /** By issuer: found through an index (a key made a moment ago may show late), read consistently. */
  listApiKeys(filter: IssuerModeFilter): Promise<AdminKeyRecord[]>
  revokeApiKey(keyHash: string, options?: ChangeOptions): Promise<KeyRevocation>
  /**
   * Atomically: the new key exists, and the old one (still usable at `now`, and of
   * `options.issuerId`) expires at `oldExpiresAt`. Refused: `current` is the old key as the write
   * found it (undefined: gone).
   */
  rollApiKey(
    input: { old: ApiKeyRecord; next: AdminKeyRecord; oldExpiresAt: number; now: number },
    options?: ChangeOptions,
  ): Promise<KeyRoll>
  /**
   * The key's own rate limit becomes `to` (absent: removed, so the mode's default holds), on
   * condition that the key is still usable at `now`, of `options.issuerId`, and its own limit
   * still `from`. Refused: `current` is the key as the write found it (undefined: gone).
   */
  setApiKeyRateLimit(change: KeyLimitChange, options?: ChangeOptions): Promise<KeyLimitSet>
}
