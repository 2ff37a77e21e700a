/**
 * Every function's timeout. The stack sets it on each function, the local adapter's context counts
 * down from it as Lambda's does, and each request's deadline is what remains of it less a margin.
 */
export const FUNCTION_TIMEOUT_SECONDS = 10
