import type { Context } from 'aws-lambda'
import { FUNCTION_TIMEOUT_SECONDS } from '../function-timeout'

/**
 * The time budget of one invocation. Lambda kills a function at its timeout, and API Gateway then
 * answers `500 {"message":"Internal Server Error"}` itself: no problem+json, no Retry-After. So
 * every request works against a deadline well inside the function's timeout, and answers `503`
 * with Retry-After when the deadline comes first.
 *
 * With the 10 s function timeout: the deadline is 7.5 s after the start; middy's own early
 * timeout (the last net, for anything that ignores the deadline) fires at 9.5 s; Lambda stops the
 * function at 10 s.
 */
export const BUDGET = {
  /**
   * Kept back from the remaining time: the answer is built, logged and returned in it. At most
   * `answerMarginShare` of what remains, so a short budget still gets to try.
   */
  answerMarginMs: 2_500,
  answerMarginShare: 0.4,
  /**
   * middy's `timeoutEarlyInMillis`: its TimeoutError (a 503) is thrown this long before the end.
   * Returning a small JSON answer to the Lambda runtime takes milliseconds; 500 leaves room for a
   * slow event loop.
   */
  lastNetMs: 500,
} as const

/**
 * How long one DynamoDB attempt may take, and how many attempts the SDK makes. A hung or slow
 * attempt is abandoned after `attemptTimeoutMs` (its socket destroyed) and retried on a fresh
 * connection, so three attempts fit well inside a request's deadline (deadline.ts). DynamoDB
 * answers single-item calls in single-digit milliseconds and transactions in tens, so 1.5 s is
 * generous for an answer and short enough to try again.
 */
export const DYNAMODB_TIMEOUTS = {
  connectionTimeoutMs: 1_000,
  attemptTimeoutMs: 1_500,
  maxAttempts: 3,
} as const

/** One request's deadline: an abort signal for every DynamoDB call, and the time left. */
export type Deadline = {
  readonly signal: AbortSignal
  /** Milliseconds left before the deadline; never below zero. */
  remainingMs(): number
}

/** Thrown as the abort reason when a request's deadline passes. */
export class DeadlineExceeded extends Error {
  constructor(budgetMs: number) {
    super(`The request's deadline of ${budgetMs} ms passed before DynamoDB answered.`)
    this.name = 'DeadlineExceeded'
  }
}

/**
 * Starts the deadline of one request from what Lambda says remains. One AbortController per
 * request: the signal middy hands the handler comes from one controller shared by the process,
 * right in Lambda (one invocation at a time) but wrong wherever requests overlap (`npm start`,
 * tests).
 */
export const startDeadline = (
  context: Pick<Context, 'getRemainingTimeInMillis'> | undefined,
  now: () => number = Date.now,
): Deadline & { dispose(): void } => {
  const remaining =
    typeof context?.getRemainingTimeInMillis === 'function'
      ? context.getRemainingTimeInMillis()
      : FUNCTION_TIMEOUT_SECONDS * 1000
  const margin = Math.min(BUDGET.answerMarginMs, remaining * BUDGET.answerMarginShare)
  const budgetMs = Math.max(0, remaining - margin)
  const at = now() + budgetMs
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(new DeadlineExceeded(budgetMs)), budgetMs)
  // A pending deadline must not keep a process (a test, the CLI) alive.
  timer.unref()
  return {
    signal: controller.signal,
    remainingMs: () => Math.max(0, at - now()),
    dispose: () => clearTimeout(timer),
  }
}

/** For callers without a budget of their own (the admin CLI, tests): never aborts. */
export const NO_DEADLINE: Deadline = {
  signal: new AbortController().signal,
  remainingMs: () => Number.POSITIVE_INFINITY,
}
