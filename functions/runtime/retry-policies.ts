import type { Backoff } from './retry'

/**
 * Every backoff of the service, named by what it waits for. Each is applied by the one retry
 * function (runtime/retry.ts `retrying`, or `optimisticUpdate` on top of it), with the clock,
 * sleep and random of the caller's dependencies, so tests and the contention model run them on
 * virtual time.
 */
export const RETRY = {
  /**
   * A read-decide-write that lost its race to another change: read again, up to 8 tries. Each
   * loser waits a random moment first (full jitter, 10 ms doubling to 160 ms), so writers that met
   * once spread out instead of meeting again; eight writers at once on one grant all get through.
   */
  lostRace: { attempts: 8, baseDelayMs: 10, maxDelayMs: 160, jitter: 'full' },
  /** One grant-life write DynamoDB cancelled for a conflict or a throttle: 4 sends, 40–160 ms. */
  grantLifeWrite: { attempts: 4, baseDelayMs: 40, maxDelayMs: 160, jitter: 'full' },
  /** A queue call's refused entries: 4 sends, 100, 200, 400 ms apart (half of each random). */
  queueSend: { attempts: 4, baseDelayMs: 100, maxDelayMs: 400, jitter: 'equal' },
  /** A pool snapshot that grants keep cancelling: 5 reads, 50–400 ms apart. */
  poolSnapshot: { attempts: 5, baseDelayMs: 50, maxDelayMs: 400, jitter: 'full' },
  /**
   * A batch worker's store call and row: as many as the delivery's time allows (its deadline ends
   * them), 25 ms doubling to 2 s, half of each wait random so deliveries that met spread out.
   */
  batchStore: {
    attempts: Number.POSITIVE_INFINITY,
    baseDelayMs: 25,
    maxDelayMs: 2_000,
    jitter: 'equal',
  },
  /** A member change another change got in the way of (stale, witness gone): 5 tries, 40–400 ms. */
  memberChange: { attempts: 5, baseDelayMs: 40, maxDelayMs: 400, jitter: 'equal' },
  /** A program's status or settings, or a webhook endpoint, changed under a person's edit: 3 tries. */
  managementRace: { attempts: 3, baseDelayMs: 10, maxDelayMs: 40, jitter: 'full' },
  /** The bench's set-up and checks on a starved DynamoDB Local: until the caller's deadline. */
  benchPatience: {
    attempts: Number.POSITIVE_INFINITY,
    baseDelayMs: 250,
    maxDelayMs: 2_000,
    jitter: 'equal',
  },
  /** A grant's write on a program's one counter cancelled for a conflict: 5 tries, 30–240 ms. */
  grantConflict: { attempts: 5, baseDelayMs: 30, maxDelayMs: 240, jitter: 'full' },
  /** A grant's write on a shard or spread conflicted (the next picks again): 10 tries, 5–30 ms. */
  grantShardConflict: { attempts: 10, baseDelayMs: 5, maxDelayMs: 30, jitter: 'full' },
  /** A grant's write throttled (until the partition's second turns over): 10 tries, 50 ms–1 s. */
  grantThrottled: { attempts: 10, baseDelayMs: 50, maxDelayMs: 1_000, jitter: 'full' },
  /** One send, no retry: the store's caller decides what a refused transaction means. */
  once: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0, jitter: 'full' },
  /** An operator's write that grants hold in conflict (CLI, seed): 8 sends, 1.8 to 3.6 s in all. */
  adminWrite: { attempts: 8, baseDelayMs: 50, maxDelayMs: 1_000, jitter: 'equal' },
  /** The same within a management request's deadline: 4 sends, at most 350 ms, then a 409. */
  requestConflict: { attempts: 4, baseDelayMs: 50, maxDelayMs: 400, jitter: 'equal' },
  /** Keys or items a batch call left unprocessed: asked again 5 sends in all, 20 ms doubling. */
  unprocessed: { attempts: 5, baseDelayMs: 20, maxDelayMs: 160, jitter: 'none' },
} as const satisfies Record<string, Backoff>
