import type { Backoff } from './retry'

/**
 * Every backoff of the service, named by what it waits for, in this one file. Each is applied by
 * the one retry function (runtime/retry.ts `retrying`, or `optimisticUpdate` on top of it), with
 * the clock, sleep and random of the caller's dependencies, so tests and the contention model run
 * them on virtual time. Read as `import * as RETRY from '…/retry-policies'` (`RETRY.lostRace`):
 * separate exports, so a function's bundle carries only the policies it uses.
 */

/**
 * A read-decide-write that lost its race to another change: read again, up to 8 tries. Each
 * loser waits a random moment first (full jitter, 10 ms doubling to 160 ms), so writers that met
 * once spread out instead of meeting again; eight writers at once on one grant all get through.
 */
export const lostRace = {
  attempts: 8,
  baseDelayMs: 10,
  maxDelayMs: 160,
  jitter: 'full',
} as const satisfies Backoff

/** One grant-life write DynamoDB cancelled for a conflict or a throttle: 4 sends, 40–160 ms. */
export const grantLifeWrite = {
  attempts: 4,
  baseDelayMs: 40,
  maxDelayMs: 160,
  jitter: 'full',
} as const satisfies Backoff

/** A queue call's refused entries: 4 sends, 100, 200, 400 ms apart (half of each random). */
export const queueSend = {
  attempts: 4,
  baseDelayMs: 100,
  maxDelayMs: 400,
  jitter: 'equal',
} as const satisfies Backoff

/** A pool snapshot that grants keep cancelling: 5 reads, 50–400 ms apart. */
export const poolSnapshot = {
  attempts: 5,
  baseDelayMs: 50,
  maxDelayMs: 400,
  jitter: 'full',
} as const satisfies Backoff

/**
 * A batch worker's store call and row: as many as the delivery's time allows (its deadline ends
 * them), 25 ms doubling to 2 s, half of each wait random so deliveries that met spread out.
 */
export const batchStore = {
  attempts: Number.POSITIVE_INFINITY,
  baseDelayMs: 25,
  maxDelayMs: 2_000,
  jitter: 'equal',
} as const satisfies Backoff

/** A member change another change got in the way of (stale, witness gone): 5 tries, 40–400 ms. */
export const memberChange = {
  attempts: 5,
  baseDelayMs: 40,
  maxDelayMs: 400,
  jitter: 'equal',
} as const satisfies Backoff

/** A program's status or settings, or a webhook endpoint, changed under a person's edit: 3 tries. */
export const managementRace = {
  attempts: 3,
  baseDelayMs: 10,
  maxDelayMs: 40,
  jitter: 'full',
} as const satisfies Backoff

/** The bench's set-up and checks on a starved DynamoDB Local: until the caller's deadline. */
export const benchPatience = {
  attempts: Number.POSITIVE_INFINITY,
  baseDelayMs: 250,
  maxDelayMs: 2_000,
  jitter: 'equal',
} as const satisfies Backoff

/** A grant's write on a program's one counter cancelled for a conflict: 5 tries, 30–240 ms. */
export const grantConflict = {
  attempts: 5,
  baseDelayMs: 30,
  maxDelayMs: 240,
  jitter: 'full',
} as const satisfies Backoff

/** A grant's write on a shard or spread conflicted (the next picks again): 10 tries, 5–30 ms. */
export const grantShardConflict = {
  attempts: 10,
  baseDelayMs: 5,
  maxDelayMs: 30,
  jitter: 'full',
} as const satisfies Backoff

/** A grant's write throttled (until the partition's second turns over): 10 tries, 50 ms–1 s. */
export const grantThrottled = {
  attempts: 10,
  baseDelayMs: 50,
  maxDelayMs: 1_000,
  jitter: 'full',
} as const satisfies Backoff

/** One send, no retry: the store's caller decides what a refused transaction means. */
export const once = {
  attempts: 1,
  baseDelayMs: 0,
  maxDelayMs: 0,
  jitter: 'full',
} as const satisfies Backoff

/** An operator's write that grants hold in conflict (CLI, seed): 8 sends, 1.8 to 3.6 s in all. */
export const adminWrite = {
  attempts: 8,
  baseDelayMs: 50,
  maxDelayMs: 1_000,
  jitter: 'equal',
} as const satisfies Backoff

/** The same within a management request's deadline: 4 sends, at most 350 ms, then a 409. */
export const requestConflict = {
  attempts: 4,
  baseDelayMs: 50,
  maxDelayMs: 400,
  jitter: 'equal',
} as const satisfies Backoff

/** Keys or items a batch call left unprocessed: asked again 5 sends in all, 20 ms doubling. */
export const unprocessed = {
  attempts: 5,
  baseDelayMs: 20,
  maxDelayMs: 160,
  jitter: 'none',
} as const satisfies Backoff

/**
 * GrantStream's timer writes that DynamoDB left unprocessed: 4 sends, 100, 200, 400 ms apart,
 * then the records they came from are failed and Lambda retries them (the stream model chose it).
 */
export const streamTimerWrite = {
  attempts: 4,
  baseDelayMs: 100,
  maxDelayMs: 400,
  jitter: 'none',
} as const satisfies Backoff

/**
 * GrantStream's figures transaction (stores/figures.dynamodb.ts) throttled, conflicted or raced
 * by another delivery: 10 sends, 50 ms doubling to 1 s, full jitter (about 3 s in all), so a
 * partition's second turns over before the record is failed: a failed record re-sends the rest
 * of its batch (timers, mail, events), more load on what is already throttled.
 */
export const figuresWrite = {
  attempts: 10,
  baseDelayMs: 50,
  maxDelayMs: 1_000,
  jitter: 'full',
} as const satisfies Backoff

/**
 * The RequestLog writer's BatchWriteItem throttled or left unprocessed: 6 sends, 50 ms doubling
 * to 800 ms (about 1.5 s in all), then the invocation fails and Lambda tries it again (its
 * entries are idempotent puts).
 */
export const requestLogWrite = {
  attempts: 6,
  baseDelayMs: 50,
  maxDelayMs: 800,
  jitter: 'equal',
} as const satisfies Backoff
