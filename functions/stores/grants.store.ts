import type { ApiKeyRecord, KeyIdentity, Mode } from '../domain/api-key'
import type { GrantCursor, GrantRecord } from '../domain/grant'
import type { GrantState } from '../domain/grant-lifecycle'
import type { AuditEntry } from '../domain/people'
import type { ProgramRecord } from '../domain/program'
import type { ShardRecord, ShardTake } from '../domain/program-shards'

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
  /** Only grants in this state (a filter, read and bounded as the recipient's). */
  status?: GrantState
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
