import { randomUUID } from 'node:crypto'
import { GrantApiError } from './errors.js'

export type Mode = 'TEST' | 'LIVE'
export type GrantRequest = {
  recipient: { email: string; name?: string }
  reason: string
  amount: number
}
export type Grant = {
  id: string
  object: 'grant'
  programId: string
  mode: Mode
  recipient: { email: string; name?: string }
  reason: string
  amount: number
  status: 'reserved'
  createdAt: string
}
/**
 * A grant as `GET /programs/{programId}/grants/{grantId}` answers it: the grant, where it is in its
 * life (its state, why it was rejected, its offer window, its e-mail) and its history.
 */
export type GrantDetail = Omit<Grant, 'status'> & {
  status: 'reserved' | 'offered' | 'accepted' | 'rejected' | 'expired' | 'canceled'
  rejectionReason: 'declined' | 'ineligible_age' | 'ineligible_country' | null
  expiresAt: string
  delivery: 'pending' | 'sent' | 'test_inbox' | 'failed'
  history: {
    at: string
    event: 'transition' | 'delivery' | 'address'
    state?: GrantDetail['status']
    reason?: NonNullable<GrantDetail['rejectionReason']>
    delivery?: string
    actor: string
    detail?: string
  }[]
}
/** A program as `GET /programs/{programId}` answers it: its pool and what it has issued. */
export type Program = {
  id: string
  object: 'program'
  mode: Mode
  name: string
  status: 'active' | 'paused' | 'closed'
  /** Null when the program has no pool. */
  pool: number | null
  /** Shares of reserved, offered and accepted grants. */
  issued: number
  remaining: number | null
  tokensCount: number
  active: boolean
  /** The value of a share (a decimal string), its ISO 4217 currency and "as of" date; null: none set. */
  tokenValue: string | null
  tokenValueCurrency: string | null
  tokenValueCalculatedDate: string | null
}
/** A recipient's standing in a program (`GET /programs/{programId}/recipients/{email}/balance`). */
export type Balance = {
  object: 'balance'
  type: 'person'
  programId: string
  person: {
    firstName: string | null
    lastName: string | null
    email: string
    dateOfBirth: null
    addressCountryCode: string | null
  }
  /** Shares of accepted grants. */
  tokenAmount: number
  participationStatus: GrantDetail['status'] | 'none'
  accepted: number
  /** Shares of reserved and offered grants. */
  pending: number
  grantCount: number
  /** The program's value of a share (as on Program), and what the accepted shares are worth at it. */
  tokenValue: string | null
  tokenValueCurrency: string | null
  tokenValueCalculatedDate: string | null
  acceptedValue: string | null
}
export type GrantResult = {
  grant: Grant
  /** True when the API replayed an earlier delivery of this Idempotency-Key. */
  replayed: boolean
  idempotencyKey: string
  requestId?: string
  attempts: number
}

export type RetryPolicy = {
  maxAttempts: number
  baseDelayMs: number
  maxDelayMs: number
  /** Each HTTP attempt is aborted after this long. */
  attemptTimeoutMs: number
  /** No attempt starts after this long from the first one. */
  deadlineMs: number
}

export type GrantClientOptions = {
  apiKey: string
  baseUrl: string
  retry?: Partial<RetryPolicy>
  /** For tests: how to wait, and the source of jitter. */
  sleep?: (ms: number) => Promise<void>
  random?: () => number
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 100,
  maxDelayMs: 5_000,
  attemptTimeoutMs: 10_000,
  deadlineMs: 60_000,
}

/** 429, 503, other 5xx and a 409 request_conflict may succeed later; other 4xx never will. */
export const isRetryable = (status: number, code: string) =>
  status === 429 || status >= 500 || (status === 409 && code === 'request_conflict')

/**
 * After a failed attempt: how long to wait before the next one (exponential backoff with full
 * jitter, never less than the answer's Retry-After), or why not to try again. The contention
 * model (bench/contention/hot-program.ts) runs this very policy in virtual time.
 */
export const nextRetry = (
  policy: RetryPolicy,
  failed: { attempt: number; elapsedMs: number; retryable: boolean; retryAfterMs?: number },
  random: () => number,
): { waitMs: number } | { giveUp: 'not_retryable' | 'attempts' | 'deadline' } => {
  if (!failed.retryable) return { giveUp: 'not_retryable' }
  if (failed.attempt >= policy.maxAttempts) return { giveUp: 'attempts' }
  const backoff = random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** failed.attempt)
  const waitMs = Math.max(backoff, failed.retryAfterMs ?? 0)
  if (failed.elapsedMs + waitMs > policy.deadlineMs) return { giveUp: 'deadline' }
  return { waitMs }
}

const retryAfterMs = (header: string | null): number | undefined => {
  if (header === null) return undefined
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

const grantPath = (programId: string, grantId: string) =>
  `/programs/${encodeURIComponent(programId)}/grants/${encodeURIComponent(grantId)}`

/**
 * The grant API, called the way the contract recommends: one Idempotency-Key per logical grant,
 * reused across its retries; exponential backoff with full jitter; Retry-After honoured; a
 * timeout per attempt and a deadline overall; no retry of a 4xx that cannot succeed.
 */
export class GrantClient {
  readonly mode: Mode
  private readonly retry: RetryPolicy
  private readonly baseUrl: string

  constructor(private readonly options: GrantClientOptions) {
    const match = /^vs_(test|live)_/.exec(options.apiKey)
    if (!match) throw new TypeError('apiKey must be a vs_test_... or vs_live_... key')
    this.mode = match[1] === 'live' ? 'LIVE' : 'TEST'
    this.retry = { ...DEFAULT_RETRY, ...options.retry }
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
  }

  async grantTokens(
    programId: string,
    request: GrantRequest,
    { idempotencyKey = randomUUID() }: { idempotencyKey?: string } = {},
  ): Promise<GrantResult> {
    const { body, response, attempts } = await this.send(
      'POST',
      `/programs/${encodeURIComponent(programId)}/grant-tokens`,
      { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      JSON.stringify(request),
    )
    return {
      grant: body as Grant,
      replayed: response.headers.get('idempotent-replayed') === 'true',
      idempotencyKey,
      requestId: response.headers.get('x-request-id') ?? undefined,
      attempts,
    }
  }

  async getGrant(programId: string, grantId: string): Promise<GrantDetail> {
    return (await this.send('GET', grantPath(programId, grantId), {})).body as GrantDetail
  }

  async getProgram(programId: string): Promise<Program> {
    return (await this.send('GET', `/programs/${encodeURIComponent(programId)}`, {}))
      .body as Program
  }

  /** Cancels a reserved or offered grant; its shares go back to the pool. Idempotent. */
  async cancelGrant(programId: string, grantId: string): Promise<GrantDetail> {
    return (await this.send('POST', `${grantPath(programId, grantId)}/cancel`, {}))
      .body as GrantDetail
  }

  /** TEST keys only: moves the grant to `to` as the recipient, the clock or the issuer would. */
  async testTransition(
    programId: string,
    grantId: string,
    move: { to: GrantDetail['status']; reason?: NonNullable<GrantDetail['rejectionReason']> },
  ): Promise<GrantDetail> {
    const { body } = await this.send(
      'POST',
      `${grantPath(programId, grantId)}/test-transition`,
      { 'content-type': 'application/json' },
      JSON.stringify(move),
    )
    return body as GrantDetail
  }

  async getBalance(programId: string, email: string): Promise<Balance> {
    const path = `/programs/${encodeURIComponent(programId)}/recipients/${encodeURIComponent(email)}/balance`
    return (await this.send('GET', path, {})).body as Balance
  }

  private async send(method: string, path: string, headers: Record<string, string>, body?: string) {
    const sleep = this.options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)))
    const random = this.options.random ?? Math.random
    const started = Date.now()
    for (let attempt = 1; ; attempt++) {
      let error: GrantApiError
      let wait: number | undefined
      try {
        const response = await fetch(`${this.baseUrl}${path}`, {
          method,
          headers: { ...headers, 'x-api-key': this.options.apiKey },
          body,
          signal: AbortSignal.timeout(this.retry.attemptTimeoutMs),
        })
        const text = await response.text()
        const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {}
        if (response.ok) return { body: parsed, response, attempts: attempt }
        const code = typeof parsed.code === 'string' ? parsed.code : `http_${response.status}`
        error = new GrantApiError(
          response.status,
          code,
          typeof parsed.detail === 'string' ? parsed.detail : response.statusText,
          isRetryable(response.status, code),
          typeof parsed.requestId === 'string'
            ? parsed.requestId
            : (response.headers.get('x-request-id') ?? undefined),
          Array.isArray(parsed.errors) ? (parsed.errors as GrantApiError['errors']) : undefined,
        )
        wait = retryAfterMs(response.headers.get('retry-after'))
      } catch (caught) {
        const timedOut = (caught as Error).name === 'TimeoutError'
        // fetch's own message is only "fetch failed": the cause says what (ECONNREFUSED, DNS ...).
        const cause = (caught as { cause?: { message?: unknown } }).cause?.message
        error = new GrantApiError(
          0,
          timedOut ? 'attempt_timeout' : 'network_error',
          typeof cause === 'string'
            ? `${(caught as Error).message}: ${cause}`
            : (caught as Error).message,
          true,
        )
      }
      const next = nextRetry(
        this.retry,
        {
          attempt,
          elapsedMs: Date.now() - started,
          retryable: error.retryable,
          ...(wait === undefined ? {} : { retryAfterMs: wait }),
        },
        random,
      )
      if ('giveUp' in next && next.giveUp !== 'deadline') throw error
      if ('giveUp' in next) {
        throw new GrantApiError(
          error.status,
          'deadline_exceeded',
          `Gave up after ${attempt} attempts: ${error.message}`,
          true,
          error.requestId,
        )
      }
      await sleep(next.waitMs)
    }
  }
}
