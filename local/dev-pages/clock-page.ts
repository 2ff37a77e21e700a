import { localProblem as problem } from '../local-guard'
import { isLoopbackHost, notLoopbackProblem } from '../loopback-host'

/** What the server needs of npm start's clock and sweep. */
export type ClockControl = {
  clock: { now(): number; readonly offsetMs: number; advance(ms: number): void }
  /** Runs the offer sweep (functions/core/offer-sweep.ts) now, on that clock; answers its report. */
  sweep(): Promise<unknown>
}

/** The most one call may move the clock: a year (an offer window is at most that). */
export const MAX_ADVANCE_MS = 366 * 24 * 60 * 60 * 1000

/**
 * npm start's clock, for tests against the running server (another process): loopback callers
 * only, like /_local/mail, and never in AWS (it is no route of functions/routes.ts; only
 * local/http-server.ts answers it). A move must also come from no page or this server's own, as
 * JSON (local/local-guard.ts checks both before the body is read).
 * - `GET /_local/clock`: `{ now, offsetMs }` (now as ISO).
 * - `POST /_local/clock {"advanceMs": n}`: moves the functions' clock forward by n ms (a whole
 *   number, 0 to a year), then runs the offer sweep at once, so what fell due (expiries,
 *   reminders) has happened when the answer comes: `{ now, offsetMs, sweep }`. Bad input: 400,
 *   application/problem+json, nothing moved.
 */
export const serveClock = async (
  method: string,
  rawPath: string,
  host: string | undefined,
  body: Buffer,
  control: ClockControl | undefined,
) => {
  if (rawPath !== '/_local/clock' || control === undefined) return undefined
  if (!isLoopbackHost(host)) return notLoopbackProblem(rawPath)
  const json = (status: number, value: unknown) => ({
    status,
    type: 'application/json',
    body: `${JSON.stringify(value, null, 2)}\n`,
  })
  const state = () => ({
    now: new Date(control.clock.now()).toISOString(),
    offsetMs: control.clock.offsetMs,
  })
  if (method === 'GET') return json(200, state())
  if (method !== 'POST') {
    return problem(405, 'method_not_allowed', 'Method not allowed', `${rawPath} takes GET or POST.`)
  }
  let input: unknown
  try {
    input = JSON.parse(body.toString('utf8'))
  } catch {
    input = undefined
  }
  const advanceMs = (input as { advanceMs?: unknown } | undefined)?.advanceMs
  if (
    typeof input !== 'object' ||
    input === null ||
    Object.keys(input).some((k) => k !== 'advanceMs') ||
    typeof advanceMs !== 'number' ||
    !Number.isInteger(advanceMs) ||
    advanceMs < 0 ||
    advanceMs > MAX_ADVANCE_MS
  ) {
    return problem(
      400,
      'validation_failed',
      'Invalid request',
      `The body must be {"advanceMs": n}, n a whole number of milliseconds from 0 to ${MAX_ADVANCE_MS} (the clock only moves forward).`,
    )
  }
  control.clock.advance(advanceMs)
  try {
    return json(200, { ...state(), sweep: await control.sweep() })
  } catch (error) {
    return problem(
      503,
      'service_unavailable',
      'Service temporarily unavailable',
      `The clock moved (now ${state().now}) but the offer sweep failed: ${error instanceof Error ? error.message : String(error)}. The next scheduled sweep tries again.`,
    )
  }
}
