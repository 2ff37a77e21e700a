import { randomBytes } from 'node:crypto'
import { BASE32_CLASS, base32 } from './ids'

/**
 * A request's id (issue 33): `req_`, 10 base32 letters of the time in ms, then 16 of 80 random
 * bits, like a ULID. It sorts by time, so the request log's sort key is the id itself, and
 * `GET /manage/issuers/{i}/requests/{requestId}` is one read: the id names its own time and slot.
 */
const TIME_LETTERS = 10
const RANDOM_LETTERS = 16
const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz'
export const REQUEST_ID_PATTERN = new RegExp(
  `^req_[${BASE32_CLASS}]{${TIME_LETTERS + RANDOM_LETTERS}}$`,
)

const timeLetters = (ms: number): string => {
  let out = ''
  let rest = Math.max(0, Math.floor(ms))
  for (let i = 0; i < TIME_LETTERS; i++) {
    out = BASE32[rest % 32] + out
    rest = Math.floor(rest / 32)
  }
  return out
}

/** A new request id for a request that arrived at `ms` (epoch milliseconds). */
export const newRequestId = (ms: number, random: Uint8Array = randomBytes(10)): string =>
  `req_${timeLetters(ms)}${base32(random, RANDOM_LETTERS)}`

/** The epoch ms a well-formed request id was made at; undefined for anything else. */
export const requestIdTime = (id: string): number | undefined => {
  if (!REQUEST_ID_PATTERN.test(id)) return undefined
  let ms = 0
  for (const letter of id.slice(4, 4 + TIME_LETTERS)) ms = ms * 32 + BASE32.indexOf(letter)
  return ms
}

/** The smallest id made at or after `ms`, and the largest made at or before: a time range's bounds. */
export const requestIdBounds = (ms: number) => ({
  from: `req_${timeLetters(ms)}${'0'.repeat(RANDOM_LETTERS)}`,
  to: `req_${timeLetters(ms)}${'z'.repeat(RANDOM_LETTERS)}`,
})
