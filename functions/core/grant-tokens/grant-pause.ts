import { RequestConflict, ServiceUnavailable } from '../../domain/errors'
import { type Deadline, DYNAMODB_TIMEOUTS } from '../../runtime/deadline'
import { type Backoff, backoffDelay } from '../../runtime/retry'
import * as RETRY from '../../runtime/retry-policies'

/** Why a grant's write is tried again: another transaction held an item, or a throttle. */
export type GrantRetryKind = 'conflict' | 'throttled'

/**
 * The policy after a failed write. A conflict on shards says little about the next try (another
 * shard, or a new read): a short pause and twice the tries; on a program's one counter the full
 * backoff; a throttle passes as the partition's second turns over: more, longer waits.
 */
export const grantRetryPolicy = (kind: GrantRetryKind, onShard: boolean): Backoff =>
  kind === 'throttled'
    ? RETRY.grantThrottled
    : onShard
      ? RETRY.grantShardConflict
      : RETRY.grantConflict

/** Time one more transaction attempt needs to be worth starting: one SDK attempt's timeout. */
export const CONFLICT_ATTEMPT_MS = DYNAMODB_TIMEOUTS.attemptTimeoutMs

export type GrantPauseDeps = {
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>
  random: () => number
  deadline: Deadline
  /** Tries on a program's one counter; every policy scales with it (twice on shards). */
  maxAttempts?: number | undefined
}

/**
 * One grant's pacing, across every kind of failure (one count of attempts): waits the policy's
 * delay before another attempt if one may still finish before the deadline; past the policy's
 * tries (or the deadline), the refusal the caller answers with.
 */
export const makeGrantPause = ({ sleep, random, deadline, maxAttempts }: GrantPauseDeps) => {
  let attempt = 1
  return async (kind: GrantRetryKind, onShard = false): Promise<void> => {
    const policy = grantRetryPolicy(kind, onShard)
    const wait = backoffDelay(policy, attempt, random)
    const limit =
      maxAttempts === undefined
        ? policy.attempts
        : Math.round((policy.attempts * maxAttempts) / RETRY.grantConflict.attempts)
    if (attempt >= limit || deadline.remainingMs() < wait + CONFLICT_ATTEMPT_MS) {
      if (kind === 'throttled') {
        throw new ServiceUnavailable({
          cause: new Error(`DynamoDB throttled ${attempt} attempts of one grant`),
        })
      }
      throw new RequestConflict()
    }
    attempt++
    await sleep(wait, deadline.signal)
  }
}

export type GrantPause = ReturnType<typeof makeGrantPause>
