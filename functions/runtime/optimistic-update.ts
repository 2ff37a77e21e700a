import { type Backoff, type RetryDeps, retrying } from './retry'

/** A try's answer when another change won the race: read again, and decide again. */
export const LOST_RACE = Symbol('lost race')

/** Thrown between tries, so that the one retry function paces them; never leaves this module. */
class LostRace extends Error {}

/**
 * Read, decide, conditional write, as many tries as `policy` allows: `attempt` decides on the
 * state as read and writes on condition that it has not changed, answering its result or
 * LOST_RACE; after a lost race the backoff's wait, then `reread`, then `attempt` again. Past the
 * last try, `exhausted` answers (or throws) with the state last read.
 */
export const optimisticUpdate = async <S, T>(
  start: S,
  {
    attempt,
    reread,
    exhausted,
    policy,
    ...deps
  }: RetryDeps & {
    attempt: (state: S, tries: number) => Promise<T | typeof LOST_RACE>
    reread: (state: S) => Promise<S>
    exhausted: (state: S) => T | Promise<T>
    policy: Backoff
    signal?: AbortSignal
  },
): Promise<T> => {
  let state = start
  let tries = 0
  return retrying(
    async () => {
      if (tries > 0) state = await reread(state)
      const outcome = await attempt(state, tries++)
      if (outcome === LOST_RACE) throw new LostRace()
      return outcome
    },
    {
      ...deps,
      backoff: policy,
      again: (error) => error instanceof LostRace,
      exhausted: () => exhausted(state),
    },
  )
}
