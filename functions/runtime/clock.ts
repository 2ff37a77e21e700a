/**
 * The time the functions see. Production reads the system clock; tests move this one forward
 * (a key's grace period, an expiry) instead of sleeping.
 */
export const clock = { now: (): number => Date.now() }

/**
 * A monotonic clock for how old a cached check is (access-cache.ts): unlike the wall clock it
 * never jumps. Tests move it forward past CHECK_BOUND_MS instead of sleeping.
 */
export const monotonic = { now: (): number => performance.now() }
