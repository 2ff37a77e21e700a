/**
 * FROZEN COPY of the grant path's key cache as released before counter shards (commit b6ccc1b),
 * for `npm run bench` only (bench/contention): "today's design" in the contention model.
 */

import { hashApiKey, type Mode, parseApiKey } from '../../../functions/domain/api-key'
import { InvalidApiKey, MissingApiKey } from '../../../functions/domain/errors'
import { type GrantStore, isKeyUsable, type KeyIdentity } from './grants.store'

/** A key that passed the offline checks (present, well-formed, checksum right). */
export type Credential = { keyHash: string; mode: Mode }

/** Rejects absent and malformed keys without touching the database. */
export const readCredential = (header: string | undefined): Credential => {
  if (header === undefined || header.length === 0) throw new MissingApiKey()
  const parsed = parseApiKey(header)
  if (!parsed) throw new InvalidApiKey()
  return { keyHash: hashApiKey(header), mode: parsed.mode }
}

/**
 * Resolves a credential to its issuer and mode, caching them in memory: both are immutable for a
 * key's life, so the cache can never be wrong about them. Whether the key is still active is NOT
 * cached; the grant transaction checks it, so a revocation takes effect on the next request.
 */
export class Authenticator {
  private readonly cache = new Map<string, KeyIdentity>()

  constructor(
    private readonly store: GrantStore,
    private readonly maxEntries = 10_000,
  ) {}

  async resolve(credential: Credential, now: number, signal?: AbortSignal): Promise<KeyIdentity> {
    const hit = this.cache.get(credential.keyHash)
    if (hit) return hit
    const record = await this.store.findApiKey(credential.keyHash, { signal })
    if (!record || record.mode !== credential.mode || !isKeyUsable(record, now)) {
      throw new InvalidApiKey()
    }
    const identity: KeyIdentity = {
      keyHash: record.keyHash,
      keyId: record.keyId,
      issuerId: record.issuerId,
      mode: record.mode,
    }
    if (this.cache.size >= this.maxEntries) {
      // Map iterates in insertion order: drop the oldest entry.
      const oldest = this.cache.keys().next().value
      if (oldest !== undefined) this.cache.delete(oldest)
    }
    this.cache.set(credential.keyHash, identity)
    return identity
  }

  forget(credential: Credential): void {
    this.cache.delete(credential.keyHash)
  }
}
