import type { AuditEntry } from '../model/people'
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
  /** The API key that made it; absent for a grant sent from the management API. */
  keyId?: string
  /**
   * The person who sent it through the management API (one grant, or a batch they committed).
   * Never part of the grant API's resource (grant-resource.ts): integrators do not see who.
   */
  sentBy?: GrantSender
  /** For a grant of a batch (send to many): the batch and the CSV row it came from. */
  batch?: { batchId: string; row: number }
}

/** A member of the issuer, as a grant records its sender (access tokens carry no e-mail). */
export type GrantSender = { sub: string; email: string }

/** What a cached, authenticated key may be trusted with: issuer and mode never change. */
export type KeyIdentity = Pick<ApiKeyRecord, 'keyHash' | 'keyId' | 'issuerId' | 'mode'>

/**
 * On whose authority a grant is written. `key`: the grant API's, checked inside the transaction
 * (still active, not expired). `issuer`: a member of the issuer, whose membership and role the
 * management route has already checked on this request; the transaction then requires only that
 * the program belongs to that issuer and mode.
 */
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
export type CallOptions = { signal?: AbortSignal | undefined }

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
export type GrantPage = { items: GrantRecord[]; nextCursor?: string }

export type ListGrantsInput = {
  programId: string
  /** Already normalised like `recipient.email` (trimmed, lower-cased). */
  recipientEmail?: string
  limit: number
  /** A cursor from an earlier page (checked by decodeGrantCursor before any read). */
  after?: GrantCursor
  /**
   * With a recipient filter, DynamoDB reads a program's grants and drops the others: at most this
   * many reads of up to 1 MB are made for one page, which may then hold fewer than `limit` grants
   * (even none) and still have a next cursor.
   */
  maxReads?: number
} & CallOptions

export interface GrantStore {
  /** Strongly consistent, so a key revoked a moment ago is seen as revoked. */
  findApiKey(keyHash: string, options?: CallOptions): Promise<ApiKeyRecord | undefined>
  /**
   * One atomic write: the key is still active, the program belongs to the key's issuer and mode,
   * is active and has room in its pool (its counters move by `amount`), and the grant is new.
   */
  createGrant(input: CreateGrantInput): Promise<CreateGrantOutcome>
  /** The key and the grant in one round trip. */
  findGrantWithKey(
    keyHash: string,
    grantId: string,
    options?: CallOptions,
  ): Promise<{ key: ApiKeyRecord | undefined; grant: GrantRecord | undefined }>
  /** Strongly consistent. */
  findProgram(programId: string, options?: CallOptions): Promise<ProgramRecord | undefined>
}

/** Reads for integrators and the management API (grants.reads.dynamodb.ts). */
export interface GrantReads extends GrantStore {
  /** The key and the program in one round trip, both strongly consistent. */
  findProgramWithKey(
    keyHash: string,
    programId: string,
    options?: CallOptions,
  ): Promise<{ key: ApiKeyRecord | undefined; program: ProgramRecord | undefined }>
  /** A program's grants, newest first, through the `byProgram` index (eventually consistent). */
  listGrants(input: ListGrantsInput): Promise<GrantPage>
}

/**
 * Where a page of a program's grants ends: the last grant's `createdAt` and id (with the program,
 * the `byProgram` index's key). The program always comes from the request, never from a cursor, so
 * a cursor can only move within the caller's own program.
 */
export type GrantCursor = { createdAt: string; grantId: string }

const CURSOR_CREATED_AT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const CURSOR_GRANT_ID = /^gr_[0-9a-z]{26}$/

/** Opaque to callers: base64url of `<createdAt> <grantId>`. */
export const encodeGrantCursor = (cursor: GrantCursor) =>
  Buffer.from(`${cursor.createdAt} ${cursor.grantId}`, 'utf8').toString('base64url')

/**
 * The position a cursor stands for, or undefined when it is not one this service made: checked
 * before any read (its characters, its length, both parts' formats, and that it encodes back to
 * exactly itself).
 */
export const decodeGrantCursor = (cursor: unknown): GrantCursor | undefined => {
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]{1,100}$/.test(cursor)) return undefined
  const [createdAt = '', grantId = '', ...rest] = Buffer.from(cursor, 'base64url')
    .toString('utf8')
    .split(' ')
  if (rest.length > 0 || !CURSOR_CREATED_AT.test(createdAt) || !CURSOR_GRANT_ID.test(grantId)) {
    return undefined
  }
  const decoded = { createdAt, grantId }
  return encodeGrantCursor(decoded) === cursor ? decoded : undefined
}

export const isKeyUsable = (key: ApiKeyRecord, now: number): boolean =>
  key.status === 'active' && (key.expiresAt === undefined || key.expiresAt > now)
