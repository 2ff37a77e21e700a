import { GrantApiError } from './errors.js'
import { RateGate } from './rate-limit.js'
import { isRetryable, nextRetry, type RetryPolicy, retryAfterMs } from './retry.js'

/** How the client waits; it must reject (or at least return) when `signal` aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>

export type SenderOptions = {
  apiKey: string
  baseUrl: string
  retry: Required<RetryPolicy>
  sleep?: Sleep | undefined
  random?: (() => number) | undefined
  now?: (() => number) | undefined
}

export type Answer = {
  body: Record<string, unknown>
  response: Response
  /** Requests that counted against `maxAttempts` (this answer's included). */
  attempts: number
  /** 429s waited out on the way. */
  rateLimited: number
  requestId?: string
}

/** One call's progress: what it has tried, and the last `Request-Id` it was answered with. */
type Call = {
  started: number
  signal?: AbortSignal | undefined
  attempts: number
  rateLimited: number
  requestId?: string
  last?: GrantApiError
}
type Failure = { error: GrantApiError; retryAfterMs?: number }

const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })

const messageOf = (reason: unknown) => (reason instanceof Error ? reason.message : String(reason))

/**
 * The HTTP attempts of one client: its retry policy, and its pacing to the key's rate limit (one
 * RateGate for every call of the client, so concurrent calls and a GrantQueue's workers share it).
 */
export class Sender {
  readonly gate: RateGate
  lastRequestId: string | undefined

  constructor(private readonly options: SenderOptions) {
    // No single answer pauses the client for longer than a call may last.
    this.gate = new RateGate(options.retry.deadlineMs)
  }

  now(): number {
    return this.options.now?.() ?? Date.now()
  }

  async send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Answer> {
    const call: Call = { started: this.now(), signal, attempts: 0, rateLimited: 0 }
    for (;;) {
      await this.paced(call)
      const outcome = await this.attempt(call, method, path, headers, body)
      if ('response' in outcome) return outcome
      call.last = outcome.error
      await this.afterFailure(call, outcome)
    }
  }

  /** Waits for the gate's slot, or gives up now when the slot is past the call's deadline. */
  private async paced(call: Call): Promise<void> {
    this.throwIfAborted(call)
    const now = this.now()
    const wait = this.gate.reserve(now, this.options.retry.deadlineMs - (now - call.started))
    if (wait === undefined) throw this.deadline(call)
    if (wait > 0) await this.sleep(call, wait)
  }

  private async attempt(
    call: Call,
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<Answer | Failure> {
    const timeout = AbortSignal.timeout(this.options.retry.attemptTimeoutMs)
    try {
      const response = await fetch(`${this.options.baseUrl}${path}`, {
        method,
        headers: { ...headers, 'x-api-key': this.options.apiKey },
        body,
        signal: call.signal ? AbortSignal.any([call.signal, timeout]) : timeout,
      })
      const text = await response.text()
      const requestId =
        response.headers.get('request-id') ?? response.headers.get('x-request-id') ?? undefined
      if (requestId !== undefined) call.requestId = this.lastRequestId = requestId
      const wait = retryAfterMs(response.headers.get('retry-after'))
      this.gate.observe(response.headers, this.now(), response.status === 429 ? wait : undefined)
      const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {}
      if (response.ok) {
        return {
          body: parsed,
          response,
          attempts: call.attempts + 1,
          rateLimited: call.rateLimited,
          ...(requestId === undefined ? {} : { requestId }),
        }
      }
      const code = typeof parsed.code === 'string' ? parsed.code : `http_${response.status}`
      const error = new GrantApiError(
        response.status,
        code,
        typeof parsed.detail === 'string' ? parsed.detail : response.statusText,
        isRetryable(response.status, code),
        typeof parsed.requestId === 'string' ? parsed.requestId : requestId,
        Array.isArray(parsed.errors) ? (parsed.errors as GrantApiError['errors']) : undefined,
      )
      return { error, ...(wait === undefined ? {} : { retryAfterMs: wait }) }
    } catch (caught) {
      this.throwIfAborted(call)
      const timedOut = (caught as Error).name === 'TimeoutError'
      // fetch's own message is only "fetch failed": the cause says what (ECONNREFUSED, DNS ...).
      const cause = (caught as { cause?: { message?: unknown } }).cause?.message
      const error = new GrantApiError(
        0,
        timedOut ? 'attempt_timeout' : 'network_error',
        typeof cause === 'string'
          ? `${(caught as Error).message}: ${cause}`
          : (caught as Error).message,
        true,
        // No answer: the last one this call had, for the console's search.
        call.requestId,
      )
      return { error }
    }
  }

  /** Waits before the next attempt, or throws the error that ends the call. */
  private async afterFailure(call: Call, { error, retryAfterMs }: Failure): Promise<void> {
    const elapsedMs = this.now() - call.started
    const random = this.options.random ?? Math.random
    if (error.status === 429) {
      call.rateLimited++
      if (call.rateLimited > this.options.retry.maxRateLimitWaits) throw error
      // Retry-After, or r=0 with a t: the gate waits it out before the next send.
      if (this.gate.pausedAfter(this.now())) return
      // A bare 429 (API Gateway's own throttle has no fields): backoff, still not an attempt.
      const policy = { ...this.options.retry, maxAttempts: Number.POSITIVE_INFINITY }
      const next = nextRetry(
        policy,
        { attempt: call.rateLimited, elapsedMs, retryable: true },
        random,
      )
      return this.waitOrGiveUp(call, next, error)
    }
    call.attempts++
    const next = nextRetry(
      this.options.retry,
      {
        attempt: call.attempts,
        elapsedMs,
        retryable: error.retryable,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      },
      random,
    )
    return this.waitOrGiveUp(call, next, error)
  }

  private async waitOrGiveUp(
    call: Call,
    next: ReturnType<typeof nextRetry>,
    error: GrantApiError,
  ): Promise<void> {
    if ('giveUp' in next) throw next.giveUp === 'deadline' ? this.deadline(call) : error
    await this.sleep(call, next.waitMs)
  }

  private async sleep(call: Call, ms: number): Promise<void> {
    try {
      await (this.options.sleep ?? realSleep)(ms, call.signal)
    } catch (caught) {
      this.throwIfAborted(call)
      throw caught
    }
    this.throwIfAborted(call)
  }

  private deadline(call: Call): GrantApiError {
    const { last } = call
    const tried = `${call.attempts} attempts${call.rateLimited ? ` and ${call.rateLimited} 429s` : ''}`
    return new GrantApiError(
      last?.status ?? 0,
      'deadline_exceeded',
      last
        ? `Gave up after ${tried}: ${last.message}`
        : `The rate limit allows no request before the ${this.options.retry.deadlineMs} ms deadline`,
      true,
      last?.requestId ?? call.requestId,
    )
  }

  /** The caller's signal ended the call: retryable, the same Idempotency-Key may still succeed. */
  private throwIfAborted(call: Call): void {
    if (!call.signal?.aborted) return
    throw new GrantApiError(
      0,
      'aborted',
      `Aborted by the caller: ${messageOf(call.signal.reason)}`,
      true,
      call.last?.requestId ?? call.requestId,
    )
  }
}
