import { hashApiKey, type Mode, parseApiKey } from '../domain/api-key'
import { InvalidApiKey, MissingApiKey } from '../domain/errors'

/** A key that passed the offline checks (present, well-formed, checksum right). */
export type Credential = { keyHash: string; mode: Mode }

/**
 * Rejects absent and malformed keys without touching the database. Whether the key exists and is
 * usable is checked against the table: by the grant path through its access cache
 * (access-cache.ts, within CHECK_BOUND_MS), by the reads on every request.
 */
export const readCredential = (header: string | undefined): Credential => {
  if (header === undefined || header.length === 0) throw new MissingApiKey()
  const parsed = parseApiKey(header)
  if (!parsed) throw new InvalidApiKey()
  return { keyHash: hashApiKey(header), mode: parsed.mode }
}
