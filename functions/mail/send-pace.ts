import { GetAccountCommand, type SESv2Client } from '@aws-sdk/client-sesv2'
import { sleep as realSleep } from '../runtime/sleep'

/**
 * Offer mail leaves no faster than the SES account may send. SES's limit is one rate per account
 * and region (GetAccount's SendQuota.MaxSendRate: 1 a second in the sandbox, tens once in
 * production); the offer mailer runs at most `maxConcurrency` invocations at once (its queue
 * trigger in functions/consumers.ts), so each process paces itself to rate / maxConcurrency and
 * together they never exceed it, whatever a batch of 50,000 grants puts on the queue.
 */
export interface SendPace {
  /** Resolves when one more message may be sent (waits if need be). */
  take(signal?: AbortSignal): Promise<void>
}

/** No pacing: the local mail sink, which has no rate. */
export const unpaced: SendPace = { take: async () => {} }

/**
 * A token bucket of `ratePerSecond` holding one token: messages leave evenly spaced, never in a
 * burst (two processes each bursting a second's worth would together exceed the account's rate).
 * On an injected clock and sleep: tests move the clock instead of waiting. Calls are served in
 * order: each reserves its slot before it waits.
 */
export const tokenBucket = ({
  ratePerSecond,
  clock,
  sleep = realSleep,
}: {
  /** Messages a second; a promise when the rate is read on first use (GetAccount). */
  ratePerSecond: number | (() => Promise<number>)
  clock: () => number
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
}): SendPace & { rate(): Promise<number> } => {
  let rate: Promise<number> | undefined
  const rateOf = () => {
    rate ??= typeof ratePerSecond === 'number' ? Promise.resolve(ratePerSecond) : ratePerSecond()
    return rate
  }
  let tokens: number | undefined
  let at = 0
  return {
    rate: rateOf,
    async take(signal) {
      const perSecond = await rateOf()
      const now = clock()
      // Full at first: the first message of a cold process goes at once.
      tokens = Math.min(1, (tokens ?? 1) + ((now - at) * perSecond) / 1000)
      at = now
      tokens -= 1
      // Below zero: this message's slot is in the future; wait until the bucket has refilled it.
      if (tokens < 0) await sleep(Math.ceil((-tokens * 1000) / perSecond), signal)
    },
  }
}

/**
 * The rate one process may send at: the account's MaxSendRate (read once, with GetAccount) divided
 * among the consumer's concurrent invocations; `fallback` (mails a second, for the account) when
 * GetAccount fails (no permission, no network) or answers no rate. `onFallback` says why.
 */
export const sesSendRate =
  (
    client: SESv2Client,
    {
      fallback,
      concurrency,
      onFallback,
    }: { fallback: number; concurrency: number; onFallback?: (error: unknown) => void },
  ) =>
  async (): Promise<number> => {
    let account = fallback
    try {
      const answer = await client.send(new GetAccountCommand({}))
      const max = answer.SendQuota?.MaxSendRate
      if (max !== undefined && max > 0) account = max
      else onFallback?.(new Error('GetAccount answered no MaxSendRate'))
    } catch (error) {
      onFallback?.(error)
    }
    return account / Math.max(1, concurrency)
  }
