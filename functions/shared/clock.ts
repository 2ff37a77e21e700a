/**
 * The time the functions see. Production reads the system clock; tests move this one forward
 * (a key's grace period, an expiry) instead of sleeping.
 */
export const clock = { now: (): number => Date.now() }
