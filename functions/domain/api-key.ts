import { createHash, randomInt } from 'node:crypto'

export const MODES = ['TEST', 'LIVE'] as const
export type Mode = (typeof MODES)[number]

/**
 * Key format: `vs_test_` or `vs_live_`, then 24 random base62 characters (142 bits), then a
 * 6-character base62 CRC-32 of everything before it. The prefix tells a human and the client which
 * mode a key is; the checksum lets us reject a mistyped or truncated key without a database read.
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const RANDOM_LENGTH = 24
const CHECKSUM_LENGTH = 6
export const KEY_PATTERN = /^vs_(test|live)_([0-9A-Za-z]{30})$/

const CRC_TABLE = (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

const crc32 = (text: string): number => {
  let crc = 0xffffffff
  for (const byte of Buffer.from(text, 'utf8')) {
    crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8)
  }
  return (crc ^ 0xffffffff) >>> 0
}

const base62 = (value: number, length: number): string => {
  let out = ''
  let rest = value
  for (let i = 0; i < length; i++) {
    out = ALPHABET[rest % 62] + out
    rest = Math.floor(rest / 62)
  }
  return out
}

const checksum = (body: string) => base62(crc32(body), CHECKSUM_LENGTH)

export const keyPrefix = (mode: Mode) => `vs_${mode.toLowerCase()}_`

export const generateApiKey = (mode: Mode): string => {
  let random = ''
  for (let i = 0; i < RANDOM_LENGTH; i++) random += ALPHABET[randomInt(62)]
  const body = keyPrefix(mode) + random
  return body + checksum(body)
}

/** The mode of a well-formed key, or undefined when the format or checksum is wrong. */
export const parseApiKey = (candidate: string): { mode: Mode } | undefined => {
  const match = KEY_PATTERN.exec(candidate)
  if (!match) return undefined
  const body = candidate.slice(0, candidate.length - CHECKSUM_LENGTH)
  if (checksum(body) !== candidate.slice(-CHECKSUM_LENGTH)) return undefined
  return { mode: match[1] === 'live' ? 'LIVE' : 'TEST' }
}

/** Keys are stored and looked up only by this hash; the secret itself is never persisted. */
export const hashApiKey = (secret: string): string =>
  createHash('sha256').update(secret, 'utf8').digest('hex')

/** What an operator may see of a key after creation: prefix and last four characters. */
export const maskApiKey = (secret: string): { prefix: string; last4: string } => ({
  prefix: secret.slice(0, 8),
  last4: secret.slice(-4),
})

export type ApiKeyStatus = 'active' | 'revoked'

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
  /** Requests a second across all instances (domain/rate-limit.ts); absent: the mode's default. */
  rateLimit?: number
}

/** What a cached, authenticated key may be trusted with: issuer and mode never change. */
export type KeyIdentity = Pick<ApiKeyRecord, 'keyHash' | 'keyId' | 'issuerId' | 'mode'>

/**
 * A key's state as people see it: revoked, expired (its time has passed), or active. The one
 * rule of a key's life; the store's roll condition (`status = active`, not expired) states the
 * same in DynamoDB's terms.
 */
export const keyState = (
  key: Pick<ApiKeyRecord, 'status' | 'expiresAt'>,
  now: number,
): 'active' | 'revoked' | 'expired' =>
  key.status === 'revoked'
    ? 'revoked'
    : key.expiresAt !== undefined && key.expiresAt <= now
      ? 'expired'
      : 'active'

export const isKeyUsable = (key: Pick<ApiKeyRecord, 'status' | 'expiresAt'>, now: number) =>
  keyState(key, now) === 'active'

/**
 * Whether a stored key opens the door for a presented one of `mode`: it exists, is of that mode,
 * and is usable now. Unknown, revoked, expired and other-mode keys are refused alike.
 */
export const keyAuthorizes = (
  key: ApiKeyRecord | undefined,
  mode: Mode,
  now: number,
): key is ApiKeyRecord => key !== undefined && key.mode === mode && isKeyUsable(key, now)
