import { sleep as realSleep } from './sleep'

/** How often, and how long apart, one request is sent again. */
export type Backoff = {
  /** Sends in all, the first included. */
  attempts: number
  /** Delay before the first retry; it doubles each time up to maxDelayMs. */
  baseDelayMs: number
  maxDelayMs: number
  /**
   * `full`: a random wait up to the delay; `equal`: half of it fixed, half random (concurrent
   * writers spread out, and each still waits a while); `none`: the delay itself.
   */
  jitter: 'full' | 'equal' | 'none'
}

/** What tests and the contention model inject: waits on their clock, a seeded random. */
export type RetryDeps = {
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  random?: () => number
  /** Wall clock (ms), for the time the attempts took. */
  now?: () => number
}

/** The wait before send `attempt + 1`, after `attempt` sends failed. */
export const backoffDelay = (backoff: Backoff, attempt: number, random: () => number) => {
  const delay = Math.min(backoff.maxDelayMs, backoff.baseDelayMs * 2 ** (attempt - 1))
  if (backoff.jitter === 'none') return delay
  return backoff.jitter === 'full' ? random() * delay : delay / 2 + (random() * delay) / 2
}

/**
 * Sends again while `send` throws an error `again` accepts, up to `backoff.attempts` sends with
 * the backoff's waits between them (cut short when `signal` aborts), and only while the wait ends
 * before `until` (ms on `now`'s clock: a caller bound by a deadline rather than a count). Past the
 * last, `exhausted` decides what the caller is told (by default the last error, as it was thrown).
 */
export const retrying = async <T>(
  send: () => Promise<T>,
  {
    backoff,
    again,
    exhausted = (error) => {
      throw error
    },
    signal,
    until = Number.POSITIVE_INFINITY,
    sleep = realSleep,
    random = Math.random,
    now = Date.now,
  }: RetryDeps & {
    backoff: Backoff
    again: (error: unknown) => boolean
    exhausted?: (error: unknown, attempts: number, elapsedMs: number) => T | Promise<T>
    signal?: AbortSignal | undefined
    until?: number
  },
): Promise<T> => {
  const started = now()
  for (let attempt = 1; ; attempt++) {
    try {
      return await send()
    } catch (error) {
      if (!again(error)) throw error
      const delay = backoffDelay(backoff, attempt, random)
      if (attempt >= backoff.attempts || now() + delay > until) {
        return exhausted(error, attempt, now() - started)
      }
      await sleep(delay, signal)
    }
  }
}
