import { randomUUID } from 'node:crypto'
import type { RateLimitState } from './rate-limit.js'
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js'
import { Sender, type Sleep } from './send.js'

export {
  DEFAULT_RETRY,
  isRetryable,
  nextRetry,
  type RetryPolicy,
} from './retry.js'

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
  /** The answer's `Request-Id` (paste it into the console's request log search). */
  requestId?: string
  /** Requests that counted against `maxAttempts`, this one included. */
  attempts: number
  /** 429s waited out before it (not attempts: capped by `maxRateLimitWaits`). */
  rateLimited: number
}

export type GrantClientOptions = {
  apiKey: string
  baseUrl: string
  retry?: Partial<RetryPolicy>
  /** For tests: how to wait (it gets the caller's signal), and the source of jitter. */
  sleep?: Sleep
  random?: () => number
  /** For tests: the clock (epoch ms) the retry deadline and the rate-limit pacing read. */
  now?: () => number
}

/** Per call: the caller's AbortSignal ends the call, waits included (`code: 'aborted'`). */
export type CallOptions = { signal?: AbortSignal }

const grantPath = (programId: string, grantId: string) =>
  `/programs/${encodeURIComponent(programId)}/grants/${encodeURIComponent(grantId)}`

/**
 * The grant API, called the way the contract recommends: one Idempotency-Key per logical grant,
 * reused across its retries; exponential backoff with full jitter; Retry-After honoured; a
 * timeout per attempt and a deadline overall; no retry of a 4xx that cannot succeed. It paces
 * itself to the key's rate limit (the RateLimit-Policy and RateLimit fields): a 429 is waited
 * out without spending an attempt, and nothing is sent while the server said none remain.
 */
export class GrantClient {
  readonly mode: Mode
  private readonly sender: Sender

  constructor(options: GrantClientOptions) {
    const match = /^vs_(test|live)_/.exec(options.apiKey)
    if (!match) throw new TypeError('apiKey must be a vs_test_... or vs_live_... key')
    this.mode = match[1] === 'live' ? 'LIVE' : 'TEST'
    this.sender = new Sender({
      apiKey: options.apiKey,
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      retry: { ...DEFAULT_RETRY, ...options.retry },
      sleep: options.sleep,
      random: options.random,
      now: options.now,
    })
  }

  /** What the answers so far said of the key's limits: its policies, what remains, any pause. */
  get rateLimit(): RateLimitState {
    return this.sender.gate.state(this.sender.now())
  }

  /** The `Request-Id` of the last answer any call of this client received. */
  get lastRequestId(): string | undefined {
    return this.sender.lastRequestId
  }

  async grantTokens(
    programId: string,
    request: GrantRequest,
    { idempotencyKey = randomUUID(), signal }: { idempotencyKey?: string } & CallOptions = {},
  ): Promise<GrantResult> {
    const answer = await this.sender.send(
      'POST',
      `/programs/${encodeURIComponent(programId)}/grant-tokens`,
      { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      JSON.stringify(request),
      signal,
    )
    return {
      grant: answer.body as Grant,
      replayed: answer.response.headers.get('idempotent-replayed') === 'true',
      idempotencyKey,
      requestId: answer.requestId,
      attempts: answer.attempts,
      rateLimited: answer.rateLimited,
    }
  }

  async getGrant(programId: string, grantId: string, call?: CallOptions): Promise<GrantDetail> {
    return (await this.send('GET', grantPath(programId, grantId), call)) as GrantDetail
  }

  async getProgram(programId: string, call?: CallOptions): Promise<Program> {
    return (await this.send('GET', `/programs/${encodeURIComponent(programId)}`, call)) as Program
  }

  /** Cancels a reserved or offered grant; its shares go back to the pool. Idempotent. */
  async cancelGrant(programId: string, grantId: string, call?: CallOptions): Promise<GrantDetail> {
    return (await this.send('POST', `${grantPath(programId, grantId)}/cancel`, call)) as GrantDetail
  }

  /** TEST keys only: moves the grant to `to` as the recipient, the clock or the issuer would. */
  async testTransition(
    programId: string,
    grantId: string,
    move: { to: GrantDetail['status']; reason?: NonNullable<GrantDetail['rejectionReason']> },
    call?: CallOptions,
  ): Promise<GrantDetail> {
    const answer = await this.sender.send(
      'POST',
      `${grantPath(programId, grantId)}/test-transition`,
      { 'content-type': 'application/json' },
      JSON.stringify(move),
      call?.signal,
    )
    return answer.body as GrantDetail
  }

  async getBalance(programId: string, email: string, call?: CallOptions): Promise<Balance> {
    const path = `/programs/${encodeURIComponent(programId)}/recipients/${encodeURIComponent(email)}/balance`
    return (await this.send('GET', path, call)) as Balance
  }

  private async send(method: string, path: string, call: CallOptions | undefined) {
    return (await this.sender.send(method, path, {}, undefined, call?.signal)).body
  }
}
