import type { Mode } from '../domain/api-key'
import type { AuditEntry } from '../domain/people'
import type { ShardRecord, ShardTake } from '../domain/program-shards'

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

/**
 * Item of the programs table (the program's "head"). With `shards` set, the counters live in
 * shard items (functions/domain/program-shards.ts) and `issued` here is only a base; every read
 * that shows a program sums them (`issued`, `remaining` of a read are the totals). Without it (a
 * program made before shards existed) this item is the program's one counter, as before.
 */
export type ProgramRecord = {
  programId: string
  issuerId: string
  mode: Mode
  name: string
  status: ProgramStatus
  pool?: number
  issued: number
  remaining?: number
  /** How many counter shards hold the pool; absent: the head is the one counter. */
  shards?: number
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
  /** The index slot of the program's listing (functions/domain/grant-slots.ts); never shown. */
  programSlot?: string
}

/** A member of the issuer, as a grant records its sender (access tokens carry no e-mail). */
export type GrantSender = { sub: string; email: string }

/** What a cached, authenticated key may be trusted with: issuer and mode never change. */
export type KeyIdentity = Pick<ApiKeyRecord, 'keyHash' | 'keyId' | 'issuerId' | 'mode'>

/**
 * On whose authority a grant is written: the grant API's key, or a member of the issuer whose
 * membership and role the management route has already checked on this request. Either way the
 * program must belong to that issuer and mode; the grant path checks it from the program's head
 * (access-cache.ts), not inside the transaction.
 */
export type GrantAuthority =
  | { kind: 'key'; key: KeyIdentity }
  | { kind: 'issuer'; issuerId: string; mode: Mode }

/**
 * Which counter a grant moves:
 * - `head`: a program without shards; the transaction also requires the head's issuer, mode and
 *   status;
 * - `shard`: one shard; the head's issuer, mode and status were checked from the access cache;
 * - `spread`: the pool has room in total but no one slice holds `amount`: each listed shard gives
 *   its `take` (moved from its `remaining` to its `issued`, on condition that `remaining >= take`),
 *   all in the grant's own transaction, so the parts add up to `amount` or nothing is written.
 */
export type GrantTarget =
  | { kind: 'head' }
  /** `limited`: the program has a pool, so the shard's `remaining` must cover the grant. */
  | { kind: 'shard'; shard: number; limited: boolean }
  | { kind: 'spread'; takes: readonly ShardTake[] }

export type CreateGrantOutcome =
  | { kind: 'created' }
  | { kind: 'grant_exists'; existing: GrantRecord }
  /** `head` only: the program's condition failed; `program` is the head as it was. */
  | { kind: 'program_rejected'; program: ProgramRecord | undefined }
  /**
   * `shard` or `spread`: a shard had less left (`remaining`) than it was asked for, or is gone
   * (resharded).
   */
  | { kind: 'shard_dry'; shard: number; remaining: number }
  | { kind: 'shard_missing'; shard: number }
  /** Another transaction held one of the items: nothing was written; try again. */
  | { kind: 'conflict' }
  /** A partition (table or index) was over its throughput: nothing was written; try later. */
  | { kind: 'throttled' }

/** `signal` aborts the call (the request's deadline): the store then throws an AbortError. */
export type CallOptions = { signal?: AbortSignal | undefined }

export type CreateGrantInput = {
  grant: GrantRecord
  authority: GrantAuthority
  target: GrantTarget
  /** Written in the same transaction as the grant, or not at all (management sends). */
  audit?: AuditEntry
} & CallOptions

/** A key and a program head, either or both, read together. */
export type AccessRead = { key?: ApiKeyRecord | undefined; program?: ProgramRecord | undefined }

export interface GrantStore {
  /**
   * The key (by hash) and the program's head (its own item: counters not summed), whichever are
   * asked for, strongly consistent, in one round trip.
   */
  findAccess(
    request: { keyHash?: string; programId?: string },
    options?: CallOptions,
  ): Promise<AccessRead>
  /** One atomic write: the counter of `target` moves by `amount`, and the grant is new. */
  createGrant(input: CreateGrantInput): Promise<CreateGrantOutcome>
  /**
   * A program's shards, each strongly consistent, in one BatchGetItem (not a snapshot: no
   * transaction in flight can cancel it; see program-shards.ts for why a total read so is exact
   * enough to refuse on).
   */
  readShards(programId: string, shards: number, options?: CallOptions): Promise<ShardRecord[]>
  /** Strongly consistent; `undefined` when there is none. */
  findGrant(grantId: string, options?: CallOptions): Promise<GrantRecord | undefined>
  /** The key and the grant in one round trip. */
  findGrantWithKey(
    keyHash: string,
    grantId: string,
    options?: CallOptions,
  ): Promise<{ key: ApiKeyRecord | undefined; grant: GrantRecord | undefined }>
  /** Strongly consistent, with `issued` and `remaining` summed over its shards. */
  findProgram(programId: string, options?: CallOptions): Promise<ProgramRecord | undefined>
}

/** Reads for integrators and the management API (grants.reads.dynamodb.ts). */
export interface GrantReads extends GrantStore {
  /**
   * The key and the program, both strongly consistent, in one BatchGetItem; with `totals` (the
   * default) `issued`/`remaining` are summed over its shards, one more BatchGetItem for a program
   * the key may see.
   */
  findProgramWithKey(
    keyHash: string,
    programId: string,
    options?: CallOptions & { totals?: boolean },
  ): Promise<{ key: ApiKeyRecord | undefined; program: ProgramRecord | undefined }>
  /**
   * A program's grants, newest first, from every slot of the listing index (eventually
   * consistent): functions/stores/grant-listing.dynamodb.ts.
   */
  listGrants(input: ListGrantsInput): Promise<GrantPage>
}

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
   * many rounds of reading (one Query per slot, about 1 MB of grants in all) are made for one page,
   * which may then hold fewer than `limit` grants (even none) and still have a next cursor.
   */
  maxReads?: number
} & CallOptions

/**
 * Where a page of a program's grants ends: the last grant's `createdAt` and id, a position in the
 * order (createdAt desc, grantId desc) whatever slot the grant is in. The program always comes
 * from the request, never from a cursor, so a cursor can only move within the caller's own
 * program.
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
