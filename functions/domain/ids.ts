import { createHash, randomBytes } from 'node:crypto'

// Crockford base32, lower-cased: URL-safe, case-insensitive to read aloud, no ambiguous letters.
const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz'
const ID_LENGTH = 26 // 130 bits
/** The same 32 characters as a regular expression's class, in ranges (openapi.json shows it). */
export const BASE32_CLASS = '0-9a-hjkmnp-tv-z'

/** The first `length` letters of `bytes` in base32 (Crockford's alphabet unless given). */
export const base32 = (bytes: Uint8Array, length: number, alphabet = BASE32): string => {
  let out = ''
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5 && out.length < length) {
      out += alphabet[(buffer >>> (bits - 5)) & 31]
      bits -= 5
    }
    buffer &= (1 << bits) - 1
  }
  return out
}

export const ID_PREFIX = {
  issuer: 'iss',
  program: 'prg',
  grant: 'gr',
  apiKey: 'key',
  /** A program's value entry (issue 32, domain/program-value.ts). */
  value: 'val',
} as const

type IdKind = keyof typeof ID_PREFIX

export const newId = (kind: IdKind): string =>
  `${ID_PREFIX[kind]}_${base32(randomBytes(17), ID_LENGTH)}`

export const idPattern = (kind: IdKind) =>
  new RegExp(`^${ID_PREFIX[kind]}_[${BASE32_CLASS}]{${ID_LENGTH}}$`)

/**
 * The grant id for a request carrying an Idempotency-Key. Being a pure function of issuer, mode and
 * key, the grant item itself is the idempotency record: a retry targets the very same item, and
 * `attribute_not_exists` on it makes the second write impossible.
 */
export const idempotentGrantId = (issuerId: string, mode: string, idempotencyKey: string): string =>
  `${ID_PREFIX.grant}_${base32(
    createHash('sha256').update(`${issuerId}\n${mode}\n${idempotencyKey}`, 'utf8').digest(),
    ID_LENGTH,
  )}`
