import type { ApiKeyRecord } from '../domain/api-key'
import type { ProgramRecord } from '../domain/program'
import { type ShardRecord, shardNumber } from '../domain/program-shards'
import { monotonicClock } from '../runtime/clock'
import type { CallOptions, GrantStore } from '../stores/grants.store'

/**
 * How old a check of a key's validity, or of a program's status, may be when a grant relies on
 * it. A key revoked (or a program paused or closed) at time T is refused by every request that
 * arrives after T + CHECK_BOUND_MS, on every instance: each entry is trusted only for this long
 * after the consistent read that filled it was SENT (a write that finished before the read was
 * sent is in what the read returns).
 *
 * Why a cache and not a check in the grant's transaction: docs/decisions/access-cache.md.
 */
export const CHECK_BOUND_MS = 1_000

/**
 * What the cache knows about a program: its head (issuer, mode, status, pool, shard count; issuer
 * and mode never change), and, for a pool split over shards, what it has seen of the slices.
 */
export type ProgramAccess = {
  head: ProgramRecord
  /**
   * Upper bounds of each shard's `remaining`, from failed grants and reads of the shards (only
   * grants write a slice, and they only lower it).
   */
  seen: Map<number, number>
  /** The pool's total left, read from the shards, when too little for a grant: refuse fast. */
  exhausted?: { remaining: number; at: number }
}

type Timed<T> = { value: T; readAt: number }

export type AccessCacheOptions = {
  /** A monotonic clock in ms; tests and the contention model inject theirs. */
  now?: () => number
  boundMs?: number
  maxEntries?: number
}

/**
 * Key validity and program heads for the grant path, each re-read (strongly consistent) once it
 * is CHECK_BOUND_MS old; both are read in one round trip when both are due. Concurrent requests
 * for the same entry share one read. Misses are never cached: a key made a moment ago works at
 * once.
 */
export class AccessCache {
  private readonly keys = new Map<string, Timed<ApiKeyRecord>>()
  private readonly programs = new Map<string, Timed<ProgramAccess>>()
  private readonly now: () => number
  private readonly boundMs: number
  private readonly maxEntries: number
  private readonly inflight = new Map<string, Promise<void>>()

  constructor(
    private readonly store: Pick<GrantStore, 'findAccess'>,
    {
      now = monotonicClock.now,
      boundMs = CHECK_BOUND_MS,
      maxEntries = 10_000,
    }: AccessCacheOptions = {},
  ) {
    this.now = now
    this.boundMs = boundMs
    this.maxEntries = maxEntries
  }

  /**
   * The key's record (undefined: no such key) and the program's access (undefined: no such
   * program), each no older than the bound.
   */
  async check(
    { keyHash, programId }: { keyHash?: string; programId: string },
    options: CallOptions = {},
  ): Promise<{ key: ApiKeyRecord | undefined; program: ProgramAccess | undefined }> {
    const keyDue = keyHash !== undefined && !this.fresh(this.keys.get(keyHash))
    const programDue = !this.fresh(this.programs.get(programId))
    if (keyDue || programDue) {
      await this.refresh(
        {
          ...(keyDue ? { keyHash } : {}),
          ...(programDue ? { programId } : {}),
        },
        options,
      )
    }
    return {
      key: keyHash === undefined ? undefined : this.keys.get(keyHash)?.value,
      program: this.programs.get(programId)?.value,
    }
  }

  /**
   * The key's record alone (undefined: no such key), no older than the bound: for what a request
   * needs before its program (the rate limit, http/integrator-request.ts).
   */
  async checkKey(keyHash: string, options: CallOptions = {}): Promise<ApiKeyRecord | undefined> {
    if (!this.fresh(this.keys.get(keyHash))) await this.refresh({ keyHash }, options)
    return this.keys.get(keyHash)?.value
  }

  /** Drops what is known of a program: its shard count changed, or its head said no. */
  forgetProgram(programId: string): void {
    this.programs.delete(programId)
  }

  /** Learns from a read of every shard: exact slices, and whether their total is below `asked`. */
  learnShards(access: ProgramAccess, shards: readonly ShardRecord[], asked: number): number {
    access.seen = new Map(
      shards.map((shard) => [shardNumber(shard.programId), shard.remaining ?? 0]),
    )
    const total = shards.reduce((sum, shard) => sum + (shard.remaining ?? 0), 0)
    if (total < asked) access.exhausted = { remaining: total, at: this.now() }
    return total
  }

  /**
   * A recent read's total of the shards, if it was below `amount`. Shares returned since (a grant
   * rejected, expired or canceled) are seen once the read is CHECK_BOUND_MS old, the same bound as
   * a program's status.
   */
  knownExhausted(access: ProgramAccess, amount: number): number | undefined {
    const exhausted = access.exhausted
    if (exhausted === undefined || this.now() - exhausted.at >= this.boundMs) return undefined
    return exhausted.remaining < amount ? exhausted.remaining : undefined
  }

  private fresh(entry: Timed<unknown> | undefined): boolean {
    return entry !== undefined && this.now() - entry.readAt < this.boundMs
  }

  private refresh(request: { keyHash?: string; programId?: string }, options: CallOptions) {
    const id = `${request.keyHash ?? ''} ${request.programId ?? ''}`
    const running = this.inflight.get(id)
    if (running) return running
    const readAt = this.now()
    const read = this.store
      .findAccess(request, options)
      .then(({ key, program }) => {
        if (request.keyHash !== undefined) {
          if (key) this.put(this.keys, request.keyHash, { value: key, readAt })
          else this.keys.delete(request.keyHash)
        }
        if (request.programId !== undefined) {
          if (program) {
            const known = this.programs.get(request.programId)?.value
            // What was seen of the slices stays while the shard count does.
            const keep = known !== undefined && known.head.shards === program.shards
            this.put(this.programs, request.programId, {
              value: {
                head: program,
                seen: keep ? known.seen : new Map(),
                ...(keep && known.exhausted ? { exhausted: known.exhausted } : {}),
              },
              readAt,
            })
          } else {
            this.programs.delete(request.programId)
          }
        }
      })
      .finally(() => this.inflight.delete(id))
    this.inflight.set(id, read)
    return read
  }

  private put<T>(map: Map<string, Timed<T>>, id: string, entry: Timed<T>) {
    map.delete(id)
    if (map.size >= this.maxEntries) {
      // Map iterates in insertion order: drop the oldest entry.
      const oldest = map.keys().next().value
      if (oldest !== undefined) map.delete(oldest)
    }
    map.set(id, entry)
  }
}
