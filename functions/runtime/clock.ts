/** A source of time in milliseconds. Entry points pass one in; tests pass their own. */
export type Clock = { readonly now: () => number }

/**
 * The time the functions see: the system clock. Entry points hand it to the use cases through
 * the runtime (functions/composition.ts); tests build their runtime with a clock they move (a
 * key's grace period, an expiry) instead of sleeping.
 */
export const systemClock: Clock = Object.freeze({ now: (): number => Date.now() })

/**
 * A monotonic clock for how old a cached check is (access-cache.ts): unlike the wall clock it
 * never jumps. Tests pass one they move past CHECK_BOUND_MS instead of sleeping.
 */
export const monotonicClock: Clock = Object.freeze({ now: (): number => performance.now() })
