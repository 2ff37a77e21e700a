import { grantBody, postGrant } from './api'

export type GrantOutcome = {
  idempotencyKey: string
  status: number
  body: Record<string, unknown>
  attempts: number
  replayed: boolean
}

/** What the contract says may be retried: no answer at all, 5xx, and a conflict 409. */
const retryable = (status: number, code: unknown) =>
  status >= 500 || (status === 409 && code === 'request_conflict')

/**
 * An integrator doing what the README tells them: one Idempotency-Key per logical grant, kept
 * across every retry, exponential backoff with full jitter, Retry-After honoured.
 */
export const grantWithRetries = async (
  baseUrl: string,
  programId: string,
  apiKey: string,
  request: { amount: number; email: string; reason?: string },
  idempotencyKey: string,
  { maxAttempts = 30, baseMs = 5, capMs = 200 } = {},
): Promise<GrantOutcome> => {
  for (let attempt = 1; ; attempt++) {
    let status = 0
    let body: Record<string, unknown> = {}
    let retryAfterMs = 0
    let replayed = false
    try {
      const call = await postGrant(
        baseUrl,
        programId,
        apiKey,
        grantBody({
          amount: request.amount,
          recipient: { email: request.email },
          reason: request.reason ?? 'Reliability run',
        }),
        { 'idempotency-key': idempotencyKey },
      )
      status = call.status
      body = call.body
      replayed = call.headers.get('idempotent-replayed') === 'true'
      retryAfterMs = Number(call.headers.get('retry-after') ?? 0) * 1000
    } catch {
      status = 0 // the connection failed: no answer is a retryable answer
    }
    if ((status !== 0 && !retryable(status, body.code)) || attempt >= maxAttempts) {
      return { idempotencyKey, status, body, attempts: attempt, replayed }
    }
    const backoff = Math.random() * Math.min(capMs, baseMs * 2 ** attempt)
    // Retry-After is honoured, capped so a test run stays short.
    await new Promise((r) => setTimeout(r, Math.max(backoff, Math.min(retryAfterMs, capMs))))
  }
}

/** Runs `jobs` with at most `concurrency` in flight. */
export const pool = async <T>(jobs: (() => Promise<T>)[], concurrency: number): Promise<T[]> => {
  const results: T[] = new Array(jobs.length)
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < jobs.length) {
        const i = next++
        results[i] = await (jobs[i] as () => Promise<T>)()
      }
    }),
  )
  return results
}
